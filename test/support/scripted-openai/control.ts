// The data-only control API of the scripted server (`/_scripted/…`, on with `control: true`): tests that
// cannot hand it functions (test/workers/*, inside workerd; client in test/workers/scripted-model.ts)
// script a model per test, queue replies for it, and read back its requests. server.ts routes here.

import { z } from 'zod';
import { openAIError } from './respond.ts';
import { assistantTurns } from './scenarios.ts';
import type { ChatMessage, FaultReply, Reply, ServerQuirks, TextReply, ToolCallsReply } from './types.ts';

export const CONTROL_PREFIX = '/_scripted';

// ---------------------------------------------------------------------------------------------
// Contract: the JSON bodies, validated with the same shapes as types.ts (checked by the annotations).

/** Validates with the schema `pick` chooses from the value's keys, so an error names the field, not "Invalid input". */
function byShape<T>(pick: (value: Record<string, unknown>) => z.ZodType<T>): z.ZodType<T> {
  return z.unknown().transform((value, ctx) => {
    const record: Record<string, unknown> = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
    const result = pick(record).safeParse(value);
    if (result.success) return result.data;
    for (const issue of result.error.issues) ctx.addIssue({ ...issue });
    return z.NEVER;
  });
}

const FinishReasonInput = z.enum(['stop', 'length', 'tool_calls', 'content_filter']);
const count = z.number().int().nonnegative();
const afterChunks = count.optional();
const name = z.string().min(1).optional();
const args = z.record(z.string(), z.unknown()).optional();

const TextReplyInput: z.ZodType<TextReply> = z.strictObject({
  content: z.string(),
  reasoningContent: z.string().optional(),
  refusal: z.string().optional(),
  finishReason: FinishReasonInput.optional(),
  fragmentChars: count.min(1).optional(),
  finishReasonOnWire: z.enum(['null', 'empty']).optional(),
  omitDone: z.boolean().optional(),
});

const ToolCallsReplyInput: z.ZodType<ToolCallsReply> = z.strictObject({
  toolCalls: z.array(
    z.strictObject({
      name: z.string().min(1),
      arguments: z.union([z.string(), z.record(z.string(), z.unknown()), z.null()]),
      id: z.string().min(1).optional(),
    }),
  ),
  content: z.string().optional(),
  reasoningContent: z.string().optional(),
  finishReason: FinishReasonInput.optional(),
  truncateArgumentsAt: count.optional(),
  fragmentChars: count.min(1).optional(),
  omitIds: z.boolean().optional(),
  nameFragmentChars: count.min(1).optional(),
  finishReasonOnWire: z.enum(['null', 'empty']).optional(),
  omitDone: z.boolean().optional(),
});

const ServerQuirksInput: z.ZodType<ServerQuirks> = z.strictObject({
  rejectParams: z.array(z.string().min(1).max(100)).max(20).optional(),
  noTools: z.enum(['ollama', 'vllm']).optional(),
  ignoreStream: z.boolean().optional(),
  alternatingRoles: z.boolean().optional(),
});

/** The 17 faults of types.ts, field for field. */
const FaultReplyInput: z.ZodType<FaultReply> = z.discriminatedUnion('fault', [
  z.strictObject({ fault: z.literal('rate_limit'), retryAfterSeconds: count.optional() }),
  z.strictObject({ fault: z.literal('insufficient_quota') }),
  z.strictObject({
    fault: z.literal('server_error'),
    status: z.union([z.literal(500), z.literal(502), z.literal(503), z.literal(504)]).optional(),
    retryAfterSeconds: count.optional(),
  }),
  z.strictObject({ fault: z.literal('invalid_api_key'), echoKey: z.boolean().optional() }),
  z.strictObject({
    fault: z.literal('http_error'),
    status: z.number().int().min(200).max(599),
    body: z.unknown().optional(),
    headers: z.record(z.string(), z.string()).optional(),
  }),
  z.strictObject({ fault: z.literal('reset_before_headers') }),
  z.strictObject({ fault: z.literal('hang') }),
  z.strictObject({ fault: z.literal('non_json'), contentType: z.string().optional(), body: z.string().optional() }),
  z.strictObject({ fault: z.literal('malformed_sse'), afterChunks }),
  z.strictObject({ fault: z.literal('stream_error'), afterChunks, message: z.string().optional() }),
  z.strictObject({ fault: z.literal('stall_mid_stream'), afterChunks }),
  z.strictObject({ fault: z.literal('cut_mid_text'), afterChunks, content: z.string().optional() }),
  z.strictObject({ fault: z.literal('cut_mid_tool_args'), afterChunks, name, arguments: args }),
  z.strictObject({ fault: z.literal('truncated_tool_args'), name, arguments: args, keepChars: count.optional() }),
  z.strictObject({ fault: z.literal('null_arguments'), name }),
  z.strictObject({ fault: z.literal('unknown_tool'), name }),
  // Capped so a typo cannot make the server build a gigabyte string.
  z.strictObject({ fault: z.literal('huge_arguments'), bytes: count.max(16_000_000), name }),
]);

/** A text reply, tool calls or a fault (types.ts), told apart by their keys. */
export const ReplyInput: z.ZodType<Reply> = byShape<Reply>((value) =>
  'fault' in value ? FaultReplyInput : 'toolCalls' in value ? ToolCallsReplyInput : TextReplyInput,
);

/** A reply with its timing: `delayMs` before any response byte (cut short when the client leaves), `chunkDelayMs` between stream chunks. */
export interface PacedReply {
  reply: Reply;
  delayMs?: number;
  chunkDelayMs?: number;
}

const PacedReplyInput: z.ZodType<PacedReply> = z.strictObject({
  reply: ReplyInput,
  delayMs: count.max(300_000).optional(),
  chunkDelayMs: count.max(60_000).optional(),
});

/** One step of a script: a bare reply, or one with its timing. */
export type ScriptStep = Reply | PacedReply;
export const ScriptStepInput: z.ZodType<ScriptStep> = byShape<ScriptStep>((value) => ('reply' in value ? PacedReplyInput : ReplyInput));

export const CreateScriptInput = z.strictObject({
  steps: z.array(ScriptStepInput),
  whenDone: ReplyInput.optional(),
  /** How this model's server refuses what it cannot do (types.ts ServerQuirks). */
  quirks: ServerQuirksInput.optional(),
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,47}$/, 'name: 1 to 48 letters, digits, ".", "_" or "-", starting with a letter or digit')
    .optional(),
});
export type CreateScriptInput = z.infer<typeof CreateScriptInput>;

export const QueueRepliesInput = z.strictObject({
  reply: ScriptStepInput,
  times: z.number().int().min(1).max(10_000).optional(),
});
export type QueueRepliesInput = z.infer<typeof QueueRepliesInput>;

/** 201 of POST /_scripted/scripts. */
export interface ScriptCreatedView {
  model: string;
}

/** 200 of POST /_scripted/models/:model/next: how many replies now wait in the model's queue. */
export interface RepliesQueuedView {
  model: string;
  queued: number;
}

/** A chat completion request of one model as the server received it. */
export interface RecordedChat {
  /** The parsed JSON body. */
  body: unknown;
  /** Lower-cased header names; Authorization and api-key headers redacted. */
  headers: Record<string, string>;
  receivedAt: number;
  /** The server-wide call index, as in the reply's `x-request-id: req_scripted_<callIndex>`. */
  callIndex: number;
  /** The path it was sent to (`/v1/chat/completions`, or Azure's `/openai/deployments/<d>/chat/completions`). */
  path?: string;
  /** Its query parameters, e.g. Azure's `api-version`. */
  query?: Record<string, string>;
}

/** 200 of GET /_scripted/models/:model/requests, oldest first. */
export interface RecordedChatsView {
  requests: RecordedChat[];
}

/** 200 of GET /_scripted/models/:model/pending: requests of the model still being answered. */
export interface PendingView {
  inFlight: number;
}

/** 200 of DELETE /_scripted/models/:model; `forgotten` is false when nothing was known of the model. */
export interface ModelForgottenView {
  model: string;
  forgotten: boolean;
}

// ---------------------------------------------------------------------------------------------
// State and routes.

/** A status and a JSON body for server.ts to send. */
export interface ControlAnswer {
  status: number;
  body: unknown;
}

export interface ScriptControl {
  /** Answers a request whose path starts with CONTROL_PREFIX. */
  answer(method: string, path: string, body: unknown): ControlAnswer;
  /** Records a chat request of `model`; it counts as in flight until the returned function is called. */
  track(model: string, recorded: RecordedChat): () => void;
  /** The model's next queued reply, else its script's step for `messages`; undefined when it has neither. */
  nextStep(model: string, messages: ChatMessage[]): PacedReply | undefined;
  /** The quirks the model's script asked for (none when unknown). */
  quirksOf(model: string): ServerQuirks;
  /** Forgets every script, queue and recording (model names are never reused). */
  reset(): void;
}

interface ModelState {
  script: { steps: PacedReply[]; whenDone: PacedReply; quirks: ServerQuirks } | undefined;
  queue: Array<{ step: PacedReply; remaining: number }>;
  requests: RecordedChat[];
  inFlight: number;
}

const DEFAULT_WHEN_DONE: TextReply = { content: 'The scripted model has played every step of its script.' };

function paced(step: ScriptStep): PacedReply {
  return 'reply' in step ? step : { reply: step };
}

function invalid(what: string, error: z.ZodError): ControlAnswer {
  return { status: 400, body: openAIError(`${what}:\n${z.prettifyError(error)}`, 'invalid_request_error', 'invalid_control_body') };
}

function notFound(method: string, path: string): ControlAnswer {
  const routes =
    'POST /_scripted/scripts, POST /_scripted/models/:model/next, GET /_scripted/models/:model/requests, GET /_scripted/models/:model/pending, DELETE /_scripted/models/:model';
  return { status: 404, body: openAIError(`Unknown control request ${method} ${path}. Known: ${routes}.`, 'invalid_request_error', 'unknown_url') };
}

export function createScriptControl(): ScriptControl {
  let models = new Map<string, ModelState>();
  // Never reset, so a name from before reset() cannot come back and pick up another test's script.
  let created = 0;

  function stateOf(model: string): ModelState {
    let state = models.get(model);
    if (state === undefined) {
      state = { script: undefined, queue: [], requests: [], inFlight: 0 };
      models.set(model, state);
    }
    return state;
  }

  function createScript(body: unknown): ControlAnswer {
    const parsed = CreateScriptInput.safeParse(body);
    if (!parsed.success) return invalid('The script is not valid; send {steps: ScriptStep[], whenDone?: Reply, quirks?: ServerQuirks, name?: string}', parsed.error);
    const { steps, whenDone, name, quirks } = parsed.data;
    created += 1;
    const model = name === undefined ? `script-${created}-${crypto.randomUUID().slice(0, 8)}` : `script-${name}-${created}`;
    stateOf(model).script = { steps: steps.map(paced), whenDone: { reply: whenDone ?? DEFAULT_WHEN_DONE }, quirks: quirks ?? {} };
    const view: ScriptCreatedView = { model };
    return { status: 201, body: view };
  }

  function queueReplies(model: string, body: unknown): ControlAnswer {
    const parsed = QueueRepliesInput.safeParse(body);
    if (!parsed.success) return invalid('The queued reply is not valid; send {reply: Reply | {reply, delayMs?, chunkDelayMs?}, times?: number}', parsed.error);
    const state = stateOf(model);
    state.queue.push({ step: paced(parsed.data.reply), remaining: parsed.data.times ?? 1 });
    const view: RepliesQueuedView = { model, queued: state.queue.reduce((sum, q) => sum + q.remaining, 0) };
    return { status: 200, body: view };
  }

  return {
    answer(method, path, body) {
      const [, prefix, resource, encoded, action, ...rest] = path.split('/');
      if (prefix !== CONTROL_PREFIX.slice(1) || rest.length > 0) return notFound(method, path);
      if (resource === 'scripts' && encoded === undefined && method === 'POST') return createScript(body);
      if (resource !== 'models' || encoded === undefined) return notFound(method, path);
      let model: string;
      try {
        model = decodeURIComponent(encoded);
      } catch {
        return notFound(method, path);
      }
      const known = models.get(model);
      const route = `${method} ${action ?? ''}`;
      switch (route) {
        case 'POST next':
          return queueReplies(model, body);
        case 'GET requests': {
          const view: RecordedChatsView = { requests: known?.requests ?? [] };
          return { status: 200, body: view };
        }
        case 'GET pending': {
          const view: PendingView = { inFlight: known?.inFlight ?? 0 };
          return { status: 200, body: view };
        }
        case 'DELETE ': {
          const view: ModelForgottenView = { model, forgotten: models.delete(model) };
          return { status: 200, body: view };
        }
        default:
          return notFound(method, path);
      }
    },

    track(model, recorded) {
      const state = stateOf(model);
      state.requests.push(recorded);
      state.inFlight += 1;
      let done = false;
      return () => {
        if (done) return;
        done = true;
        // A forgotten model's old state is decremented harmlessly.
        state.inFlight -= 1;
      };
    },

    nextStep(model, messages) {
      const state = models.get(model);
      if (state === undefined) return undefined;
      const next = state.queue[0];
      if (next !== undefined) {
        next.remaining -= 1;
        if (next.remaining <= 0) state.queue.shift();
        return next.step;
      }
      // As toolLoop (scenarios.ts) does: step k answers a conversation holding k assistant turns.
      if (state.script !== undefined) return state.script.steps[assistantTurns(messages)] ?? state.script.whenDone;
      return undefined;
    },

    quirksOf(model) {
      return models.get(model)?.script?.quirks ?? {};
    },

    reset() {
      models = new Map();
    },
  };
}
