/**
 * The AI turn when things go wrong, inside workerd: the real Worker and session Durable Object, the
 * real `openai` SDK against the scripted OpenAI-compatible server playing provider faults, odd tool
 * calls, a model that never stops and unusable answers. Every turn must end with one explicit event
 * and code, leave the project and the staged changes as they were, keep the user's message, and never
 * let the API key out (events, session view, audit rows, object tables). A model turned against the
 * project (prompt injection, another user's session) is ai-turn-attacks.test.ts; both share turn-faults.ts.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { FaultReply } from '../support/scripted-openai/types.ts';
import type { TestClient } from './client.ts';
import type { ScriptStep } from './scripted-model.ts';
import { STEP, WF } from './sessions.ts';
import { CANARY_KEY, objectRows, toolCall } from './turns.ts';
import { guardLogs } from './log-canary.ts';
import { MESSAGE, OK_CHAT, bench, bodies, expectFailed, expectIntact, runTurn, toolResultIn, type Bench, type Turn } from './turn-faults.ts';

// Nothing this file's faults make the Worker or the session object log may carry a key, an email or a hash.
guardLogs();

/** Provider retries after the first attempt (worker/llm/retry-policy.ts MAX_RETRIES): 3 requests at most. */
const ATTEMPTS = 3;
/** Model calls per turn (shared/ai/turn.ts MAX_LOOP_ITERATIONS). */
const LOOP_LIMIT = 8;
/** The smallest profile timeout (shared/api/llm-profile.ts LLM_TIMEOUT_SECONDS.min). */
const MIN_TIMEOUT_SECONDS = 5;

/** Make the owner's profile time out after `seconds` (the PUT replaces the profile; same model and key). */
async function useTimeout(client: TestClient, model: string, seconds: number) {
  const res = await client.put('/api/users/me/llm-profile', {
    provider: 'openai-compatible',
    preset: 'custom',
    baseUrl: env.SCRIPTED_OPENAI_URL,
    model,
    apiKey: CANARY_KEY,
    timeoutSeconds: seconds,
    contextWindow: 128_000,
  });
  expect(res.status, JSON.stringify(res.error)).toBe(200);
}

// ------------------------------------------------------------------------------------------ 1. provider faults

interface ProviderCase {
  name: string;
  fault: FaultReply;
  /** How often the fault is queued before the script (which answers OK_CHAT). */
  times: number;
  /** Chat requests the server records for the turn. */
  requests: number;
  /** The ending: a code of turn.failed, or 'finished'. */
  ends: string;
  timeoutSeconds?: number;
  check?: (turn: Turn, b: Bench) => Promise<void> | void;
}

const PROVIDER_CASES: ProviderCase[] = [
  { name: 'rate_limit beyond the retry budget', fault: { fault: 'rate_limit', retryAfterSeconds: 0 }, times: ATTEMPTS + 1, requests: ATTEMPTS, ends: 'AI_PROVIDER_ERROR' },
  {
    name: 'one rate_limit with Retry-After 1 s, retried',
    fault: { fault: 'rate_limit', retryAfterSeconds: 1 },
    times: 1,
    requests: 2,
    ends: 'finished',
    async check(turn, b) {
      const [first, second] = await b.scripted.requests();
      expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(900);
      expect(turn.events().find((e) => e.type === 'llm.completed')?.payload.attempts).toBe(2);
    },
  },
  {
    name: 'rate_limit asking for 30 s (longer than we wait)',
    fault: { fault: 'rate_limit', retryAfterSeconds: 30 },
    times: 1,
    requests: 1,
    ends: 'AI_PROVIDER_ERROR',
    check: (turn) => expect(turn.end.payload.hints.join(' ')).toContain('30 seconds'),
  },
  { name: 'insufficient_quota, never retried', fault: { fault: 'insufficient_quota' }, times: ATTEMPTS, requests: 1, ends: 'AI_PROVIDER_ERROR' },
  { name: 'server_error, bounded retries', fault: { fault: 'server_error', status: 503 }, times: ATTEMPTS + 1, requests: ATTEMPTS, ends: 'AI_PROVIDER_ERROR' },
  {
    name: 'invalid_api_key echoing the key',
    fault: { fault: 'invalid_api_key', echoKey: true },
    times: 1,
    requests: 1,
    ends: 'AI_PROVIDER_ERROR',
    check: (turn) => expect(turn.end.payload.message).toContain('HTTP 401'),
  },
  { name: 'http_error 404', fault: { fault: 'http_error', status: 404 }, times: 1, requests: 1, ends: 'AI_PROVIDER_ERROR' },
  { name: 'reset_before_headers, retried then unreachable', fault: { fault: 'reset_before_headers' }, times: ATTEMPTS + 1, requests: ATTEMPTS, ends: 'AI_PROVIDER_UNREACHABLE' },
  { name: 'non_json (an HTML page with 200)', fault: { fault: 'non_json' }, times: 1, requests: 1, ends: 'AI_PROVIDER_ERROR' },
  { name: 'malformed_sse', fault: { fault: 'malformed_sse' }, times: 1, requests: 1, ends: 'AI_PROVIDER_ERROR' },
  { name: 'stream_error inside a 200 stream', fault: { fault: 'stream_error', message: 'upstream overloaded' }, times: 1, requests: 1, ends: 'AI_PROVIDER_ERROR' },
  { name: 'cut_mid_text', fault: { fault: 'cut_mid_text' }, times: 1, requests: 1, ends: 'AI_PROVIDER_ERROR' },
  ...[1, 2].map((afterChunks) => ({
    name: `cut_mid_text after ${afterChunks} chunk(s): the answer broke off, the provider was reached`,
    fault: { fault: 'cut_mid_text', afterChunks } as FaultReply,
    times: 1,
    requests: 1,
    ends: 'AI_PROVIDER_ERROR' as const,
    check: (turn: any) => expect(turn.end.payload.message).toMatch(/^The AI provider's answer broke off before it was finished\./u),
  })),
  {
    name: 'cut_mid_tool_args: the cut call never runs',
    fault: { fault: 'cut_mid_tool_args', name: 'builder_step_read', arguments: { workflowId: WF, nodeId: STEP } },
    times: 1,
    requests: 1,
    ends: 'AI_PROVIDER_ERROR',
    check: (turn) => expect(turn.events().filter((e) => e.type.startsWith('tool.'))).toEqual([]),
  },
  { name: 'hang, until the profile timeout', fault: { fault: 'hang' }, times: 1, requests: 1, ends: 'AI_PROVIDER_TIMEOUT', timeoutSeconds: MIN_TIMEOUT_SECONDS },
];

describe('provider faults end the turn with one explicit event', () => {
  for (const c of PROVIDER_CASES) {
    it(`${c.name} → ${c.ends}`, async () => {
      const b = await bench([OK_CHAT]);
      await b.scripted.queue(c.fault, c.times);
      if (c.timeoutSeconds) await useTimeout(b.owner, b.scripted.model, c.timeoutSeconds);
      const turn = await runTurn(b);

      if (c.ends === 'finished') {
        expect(turn.end.type, JSON.stringify(turn.end.payload)).toBe('turn.finished');
        expect(turn.end.payload).toMatchObject({ responseType: 'chat', summary: 'I read the step; nothing needs to change.' });
      } else {
        expectFailed(turn, c.ends);
      }
      expect(await b.scripted.requests()).toHaveLength(c.requests);
      await c.check?.(turn, b);
      await expectIntact(b, turn);
    });
  }
});

// ------------------------------------------------------------------------------------------ 2. tool-call faults

const TOOL_CASES: Array<{ name: string; fault: FaultReply; code: string; message?: string }> = [
  {
    name: 'truncated_tool_args',
    fault: { fault: 'truncated_tool_args', name: 'builder_step_read', arguments: { workflowId: WF, nodeId: STEP } },
    code: 'AI_BAD_RESPONSE',
    message: 'cut off',
  },
  // null arguments read as "no arguments"; builder.step.read needs some, so its schema refuses the call.
  { name: 'null_arguments', fault: { fault: 'null_arguments', name: 'builder_step_read' }, code: 'AI_TOOL_ARGUMENTS_INVALID' },
  { name: 'unknown_tool', fault: { fault: 'unknown_tool', name: 'builder_shell_exec' }, code: 'AI_TOOL_NOT_ALLOWED' },
  { name: 'huge_arguments (1.1 MB)', fault: { fault: 'huge_arguments', bytes: 1_100_000, name: 'builder_step_read' }, code: 'AI_TOOL_EXECUTION_ERROR', message: 'larger than' },
];

describe('tool-call faults answer the model with an error and the turn goes on', () => {
  for (const c of TOOL_CASES) {
    it(`${c.name}: the tool result carries ${c.code}, the tool never runs, the turn finishes`, async () => {
      const b = await bench([c.fault, OK_CHAT]);
      const turn = await runTurn(b);
      expect(turn.end.type, JSON.stringify(turn.end.payload)).toBe('turn.finished');

      const sent = await bodies(b.scripted);
      expect(sent).toHaveLength(2);
      const { toolCallId, envelope } = toolResultIn(sent[1]);
      expect(envelope).toMatchObject({ ok: false, data: null, error: { code: c.code } });
      if (c.message) expect(envelope.error.message).toContain(c.message);
      const finished = turn.events().filter((e) => e.type === 'tool.finished');
      expect(finished.map((e) => [e.payload.toolCallId, e.payload.ok, e.payload.code])).toEqual([[toolCallId, false, c.code]]);

      if (c.fault.fault === 'huge_arguments') {
        // Refused unread and never kept whole: not in the object's messages, not re-sent to the model.
        expect(turn.events().find((e) => e.type === 'tool.started')?.payload.summary).toBe('not run');
        const [row] = await objectRows(b.sessionId, "SELECT max(length(content) + length(coalesce(extra, ''))) AS biggest FROM messages");
        expect(row!.biggest as number).toBeLessThan(100_000);
        expect(JSON.stringify(sent[1]).length).toBeLessThan(1_000_000);
        expect(JSON.stringify(turn.events()).length).toBeLessThan(100_000);
      }
      await expectIntact(b, turn);
    });
  }
});

// ------------------------------------------------------------------------------------------ 3. a model that never stops

describe('a model that calls tools forever', () => {
  it(`fails with AI_TOOL_LOOP_LIMIT_EXCEEDED after exactly ${LOOP_LIMIT} model requests`, async () => {
    const forever = Array.from({ length: LOOP_LIMIT + 4 }, (_, i) => ({ toolCalls: [toolCall('builder.context.get', {}, `call_ctx_${i}`)] }));
    const b = await bench(forever);
    const turn = await runTurn(b);
    expectFailed(turn, 'AI_TOOL_LOOP_LIMIT_EXCEEDED');
    expect(await b.scripted.requests()).toHaveLength(LOOP_LIMIT);
    const finished = turn.events().filter((e) => e.type === 'tool.finished');
    expect(finished).toHaveLength(LOOP_LIMIT);
    expect(finished.every((e) => e.payload.ok)).toBe(true);
    await expectIntact(b, turn);
  });
});

// ------------------------------------------------------------------------------------------ 4. unusable final answers

const BAD_ANSWERS: Array<{ name: string; reply: ScriptStep }> = [
  { name: 'empty content', reply: { content: '' } },
  { name: 'JSON with responseType "banana"', reply: { content: JSON.stringify({ responseType: 'banana', assistantSummary: 'Yellow.' }) } },
];

function repairOf(body: any): string | undefined {
  const last = body.messages.at(-1);
  return last?.role === 'user' && typeof last.content === 'string' && last.content.startsWith('REPAIR_REQUEST') ? last.content : undefined;
}

describe('an unusable final answer', () => {
  for (const c of BAD_ANSWERS) {
    it(`${c.name}: one corrective request, then AI_BAD_RESPONSE`, async () => {
      const b = await bench([c.reply, c.reply, OK_CHAT]);
      const turn = await runTurn(b);
      expectFailed(turn, 'AI_BAD_RESPONSE');
      const sent = await bodies(b.scripted);
      expect(sent).toHaveLength(2);
      expect(repairOf(sent[0])).toBeUndefined();
      expect(repairOf(sent[1])).toEqual(expect.any(String));
      await expectIntact(b, turn);
    });

    it(`${c.name} once: the corrective request is answered and the turn finishes`, async () => {
      const b = await bench([c.reply, OK_CHAT]);
      const turn = await runTurn(b);
      expect(turn.end.type, JSON.stringify(turn.end.payload)).toBe('turn.finished');
      const sent = await bodies(b.scripted);
      expect(sent).toHaveLength(2);
      expect(repairOf(sent[1])).toEqual(expect.any(String));
      await expectIntact(b, turn);
    });
  }

  it('accepts a plain prose answer as a chat summary', async () => {
    const prose = 'The step already asks for a receipt on every line; I would leave it as it is.';
    const b = await bench([{ content: prose }]);
    const turn = await runTurn(b);
    expect(turn.end.type).toBe('turn.finished');
    expect(turn.end.payload).toMatchObject({ responseType: 'chat', summary: prose, changeSetId: null, repairs: 0 });
    expect(await b.scripted.requests()).toHaveLength(1);
    const state = (await b.owner.get(b.path)).data;
    expect(state.messages.items.map((m: any) => [m.role, m.content])).toEqual([
      ['user', MESSAGE],
      ['assistant', prose],
    ]);
    await expectIntact(b, turn);
  });
});
