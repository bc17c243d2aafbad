/**
 * One tool call of the model, from its streamed arguments to its `role=tool` result: the checks
 * that keep a call from running (cut off, oversized, not JSON, not allowed in this turn), the run
 * itself — exactly once per tool_call_id, recorded before and after — and its two events.
 */
import { toolError, type ToolEnvelope } from '../../../shared/ai/tool-envelope.ts';
import { CHANGE_TOOL_NAMES } from '../../../shared/ai/tool-names.ts';
import type { NewEvent, SessionEvent } from '../../../shared/ai/events.ts';
import type { AssembledToolCall, AssistantMessage, ChatMessage } from '../../../shared/llm/types.ts';
import type { Actor, SessionCore } from '../session.ts';
import { fromWireName, runTool } from '../tools/registry.ts';
import { failedBefore, teach } from '../tools/teaching.ts';
import { parseJsonLenient } from '../../../shared/ai/lenient-input.ts';
import { MAX_JSON_DEPTH, jsonNestsDeeper } from '../../../shared/json-depth.ts';
import type { AuditBuffer } from './audit-buffer.ts';
import { argumentsSummary, argumentsWords, resultSummary, resultWords } from './summaries.ts';
import type { Ending } from './turn-endings.ts';
import type { TurnRecord } from './turn-store.ts';

/** Tool arguments above this size are refused unread (a changeSet payload is capped at 512 KiB). */
export const MAX_TOOL_ARGUMENT_CHARS = 1_000_000;
/** What is stored (and sent back) in place of oversized arguments; a call carrying it never runs. */
const OVERSIZED_ARGUMENTS = '{"refused":"the arguments were too large to keep"}';
/** The same for arguments nested deeper than MAX_JSON_DEPTH (300 KB of brackets would fill the context). */
const TOO_DEEP_ARGUMENTS = '{"refused":"the arguments were nested too deeply to keep"}';

const CHANGE_TOOLS: ReadonlySet<string> = new Set(CHANGE_TOOL_NAMES);
/** The refusal of a call whose arguments are not JSON even read leniently. */
const NOT_JSON = 'The arguments are not valid JSON; the tool did not run.';
/**
 * Model responses in a row whose every tool call had arguments that could not be read: at this many
 * the turn ends. The model was told once; the same again points at the model server's tool-call
 * parser (or its chat template), which the model cannot fix.
 */
export const UNREADABLE_RESPONSES_LIMIT = 2;

export interface ToolCallDeps {
  core: SessionCore;
  emit: (event: NewEvent) => SessionEvent;
}

export interface ToolCallToRun {
  toolCallId: string;
  /** The dotted name. */
  name: string;
  args: unknown;
  iteration: number;
  /** Set when the call must not run: this is its result. */
  refusal: ToolEnvelope | null;
  /** What the lenient reading of the arguments interpreted (double encoding, fences), told back to the model. */
  notes?: string[];
  /**
   * A changeSet the final answer carried, staged as if called: no assistant message names this
   * call, so its result is told in the repair request, never as a `role=tool` message (which real
   * servers refuse without a tool call before it).
   */
  fromAnswer?: boolean;
}

/** The assistant message as stored and re-sent: oversized or too deeply nested arguments are replaced, never replayed. */
export function storedAssistantMessage(message: AssistantMessage): AssistantMessage {
  if (!message.tool_calls?.length) return message;
  return {
    ...message,
    tool_calls: message.tool_calls.map((call) => {
      if (call.type !== 'function') return call;
      const text = call.function.arguments;
      const kept = text.length > MAX_TOOL_ARGUMENT_CHARS ? OVERSIZED_ARGUMENTS : jsonNestsDeeper(text) ? TOO_DEEP_ARGUMENTS : null;
      return kept === null ? call : { ...call, function: { ...call.function, arguments: kept } };
    }),
  };
}

type FunctionCall = Extract<NonNullable<AssistantMessage['tool_calls']>[number], { type: 'function' }>;

/** The call's dotted name and parsed arguments, or the refusal that stands for its result. */
export function readToolCall(
  call: FunctionCall,
  assembled: readonly AssembledToolCall[],
  offered: ReadonlySet<string>,
): { name: string; args: unknown; refusal: ToolEnvelope | null; notes: string[] } {
  const streamed = assembled.find((a) => a.id === call.id);
  const clean = assembled.length === 0 ? true : (streamed?.finishedCleanly ?? false);
  const name = fromWireName(call.function.name);
  // The arguments as the model sent them (the stored message has oversized ones replaced).
  const raw = streamed?.argumentsText ?? call.function.arguments;
  let args: unknown;
  let notes: string[] = [];
  let refusal: ToolEnvelope | null = null;
  if (!clean) {
    refusal = toolError('AI_BAD_RESPONSE', {
      message: 'The arguments of this call were cut off (the answer ended early), so the tool did not run.',
      hints: ['Call the tool again with complete arguments; keep them smaller if they were large.'],
    });
  } else if (raw.length > MAX_TOOL_ARGUMENT_CHARS || raw === OVERSIZED_ARGUMENTS) {
    refusal = toolError('AI_TOOL_EXECUTION_ERROR', { message: `The arguments are larger than ${MAX_TOOL_ARGUMENT_CHARS} characters; the tool did not run.` });
  } else if (raw === TOO_DEEP_ARGUMENTS || jsonNestsDeeper(raw)) {
    args = raw;
    refusal = toolError('AI_TOOL_EXECUTION_ERROR', {
      message: `The arguments nest objects or arrays more than ${MAX_JSON_DEPTH} levels deep; the tool did not run.`,
      hints: ['Send the arguments as the tool schema shows them: a few levels deep at most.'],
    });
  } else {
    const parsed = raw.trim() === '' ? ({ ok: true, value: {}, notes: [] } as const) : parseJsonLenient(raw, { unwrapString: true });
    if (parsed.ok) {
      args = parsed.value;
      notes = [...parsed.notes];
    } else {
      // Kept as text so that the same broken text sent again is recognised as a repeat (teaching.ts).
      args = raw;
      refusal = toolError('AI_TOOL_EXECUTION_ERROR', { message: NOT_JSON, hints: ['Send the arguments as one JSON object.'] });
    }
  }
  if (!refusal && !offered.has(name) && CHANGE_TOOLS.has(name)) {
    refusal = toolError('AI_TOOL_NOT_ALLOWED', { message: 'This turn is "suggest only": nothing may be staged. Describe your suggestions in the answer instead.' });
  }
  return { name, args, refusal, notes };
}

/** Run one tool call exactly once: a finished run is never repeated; its result is already in the conversation. */
export async function runToolCall(deps: ToolCallDeps, turn: TurnRecord, call: ToolCallToRun, audit: AuditBuffer): Promise<ToolEnvelope> {
  const { core, emit } = deps;
  const { toolCallId, name, args, iteration, refusal, notes = [] } = call;
  const previous = core.turns.toolRun(turn.id, iteration, toolCallId);
  if (previous?.status === 'finished' && previous.result) return previous.result;
  const summary = refusal ? 'not run' : argumentsSummary(name, args);
  const words = argumentsWords(name, args, refusal !== null);
  emit({ type: 'tool.started', actor: { kind: 'ai' }, turnId: turn.id, payload: { iteration, toolCallId, name, summary, ...(words ? { words } : {}) } });
  const startedAt = Date.now();
  let result: ToolEnvelope;
  if (refusal) {
    result = refusal;
  } else if (previous?.status === 'started' && CHANGE_TOOLS.has(name)) {
    // Interrupted by a restart after it began: its effect is unknown, so it is not run twice.
    result = toolError('AI_TURN_INTERRUPTED', {
      message: 'This change tool was interrupted by a server restart; it may or may not have taken effect. It was not run again.',
      hints: ['Call builder.change.validate or read the files to see the current staged state.'],
    });
  } else {
    // Only a change tool's start is a checkpoint (the refusal above reads it); a read runs again after a restart.
    if (CHANGE_TOOLS.has(name)) core.turns.startToolRun(turn.id, iteration, toolCallId, name);
    const actor: Actor = { userId: turn.userId, name: turn.userName, role: turn.userRole };
    result = await runTool(core, { actor, source: 'ai' }, name, args);
  }
  if (notes.length > 0) result = { ...result, meta: { ...result.meta, notes: [...notes, ...((result.meta.notes as string[] | undefined) ?? [])] } } as ToolEnvelope;
  if (!result.ok) {
    const repeated = failedBefore(core.turns.loopMessages(turn.id), name, args, toolCallId, result.error.code);
    result = teach(result, name, core.meta, repeated);
  }
  const durationMs = Date.now() - startedAt;
  core.turns.finishToolRun(turn.id, iteration, toolCallId, name, result, durationMs, call.fromAnswer !== true);
  if (result.ok && name === 'builder.change.stage') core.turns.update(turn.id, { stagedVersion: (result.data as { version: number }).version });
  if (result.ok && name === 'builder.change.discard') core.turns.update(turn.id, { stagedVersion: null });
  const code = result.ok ? null : result.error.code;
  emit({
    type: 'tool.finished',
    actor: { kind: 'ai' },
    turnId: turn.id,
    payload: { iteration, toolCallId, name, ok: result.ok, durationMs, code, summary: resultSummary(name, result), words: resultWords(name, result) },
  });
  audit.add({ type: 'ai.tool.called', userId: turn.userId, code, latencyMs: durationMs, payload: { turnId: turn.id, toolCallId, name, ok: result.ok } });
  return result;
}

/** Whether a `role=tool` message is the refusal of arguments that are not JSON. */
function refusedAsNotJson(content: unknown): boolean {
  try {
    const result = JSON.parse(String(content)) as ToolEnvelope;
    return !result.ok && result.error.message === NOT_JSON;
  } catch {
    return false;
  }
}

/**
 * How many of the latest model responses in a row asked only for calls refused as not JSON. A
 * response's results are the tool messages after it (ids repeat across responses on some servers).
 */
export function unreadableResponsesInARow(messages: readonly ChatMessage[]): number {
  const responses: boolean[] = [];
  let open: { ids: Set<string>; refused: Set<string> } | null = null;
  const close = () => {
    if (open) responses.push(open.ids.size > 0 && open.refused.size === open.ids.size);
    open = null;
  };
  for (const message of messages) {
    if (message.role === 'tool') {
      if (open && open.ids.has(message.tool_call_id) && refusedAsNotJson(message.content)) open.refused.add(message.tool_call_id);
      continue;
    }
    close();
    if (message.role === 'assistant') open = { ids: new Set((message.tool_calls ?? []).map((call) => call.id)), refused: new Set() };
  }
  close();
  let count = 0;
  for (let i = responses.length - 1; i >= 0 && responses[i]; i--) count++;
  return count;
}

/**
 * The ending after UNREADABLE_RESPONSES_LIMIT such responses: what is likely wrong and how to fix it,
 * never the arguments themselves or the tool's own error text.
 */
export function unreadableArgumentsEnding(): Extract<Ending, { kind: 'failed' }> {
  return {
    kind: 'failed',
    code: 'AI_TOOL_ARGUMENTS_UNREADABLE',
    message: `The AI's tool calls could not be read: ${UNREADABLE_RESPONSES_LIMIT} times in a row their arguments were not JSON, so it could not read or change any file.`,
    hints: [
      "This usually means the model server does not parse this model's tool calls.",
      'vLLM: start it with --enable-auto-tool-choice --tool-call-parser <parser> that fits the model (hermes for Qwen, llama3_json for Llama 3.x, mistral for Mistral, …).',
      "llama.cpp (llama-server): start it with --jinja so the model's chat template handles tools.",
      'Ollama: choose a model whose template supports tools, e.g. qwen2.5 or llama3.1.',
      'Or choose another model in Settings → AI.',
    ],
  };
}
