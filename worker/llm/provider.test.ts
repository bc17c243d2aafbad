// Over 400 lines on purpose: one subject (the provider adapter against the scripted server), one describe block per behaviour.
// The provider adapter against the scripted OpenAI-compatible server, through the real openai SDK.

import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startScriptedOpenAI, type FaultReply, type ScriptedOpenAI } from '../../test/support/scripted-openai/index.ts';
import { createChatProvider, type ProviderOptions } from './provider.ts';
import type { ChatMessage, ChatTool, ProviderProfile } from '../../shared/llm/types.ts';
import type { ChatOutcome } from './chat-outcome.ts';

const KEY = 'sk-canary-7f3a9c2e1b5d4f60aa11';
const server: ScriptedOpenAI = await startScriptedOpenAI();

afterAll(() => server.close());
beforeEach(() => server.reset());

const messages: ChatMessage[] = [{ role: 'user', content: 'Improve step one' }];
const tools: ChatTool[] = [
  { type: 'function', function: { name: 'builder_context_get', parameters: { type: 'object', properties: {} } } },
  {
    type: 'function',
    function: { name: 'builder_step_read', parameters: { type: 'object', properties: { nodeId: { type: 'string' } } } },
  },
];

function setup(profile: Partial<ProviderProfile> = {}, options: ProviderOptions = {}) {
  const sleeps: number[] = [];
  const provider = createChatProvider(
    { baseUrl: server.url, model: 'gpt-test', apiKey: KEY, timeoutSeconds: 10, ...profile },
    { sleep: async (ms) => void sleeps.push(ms), random: () => 0.5, ...options },
  );
  return { provider, sleeps };
}

function completed(outcome: ChatOutcome) {
  if (outcome.type !== 'completed') throw new Error(`expected completed, got ${JSON.stringify(outcome)}`);
  return outcome.result;
}

function failed(outcome: ChatOutcome) {
  if (outcome.type !== 'failed') throw new Error(`expected failed, got ${outcome.type}`);
  return outcome;
}

describe('streamChat', () => {
  it('streams text through onTextDelta and reports usage', async () => {
    server.setScenario({ content: 'Here is a short answer about step one.' });
    const deltas: string[] = [];
    const result = completed(await setup().provider.streamChat({ messages, onTextDelta: (t) => deltas.push(t) }));
    expect(result.content).toBe('Here is a short answer about step one.');
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.join('')).toBe(result.content);
    expect(result.finishReason).toBe('stop');
    expect(result.usage).toMatchObject({ promptTokens: expect.any(Number), completionTokens: 10 });
    expect(result.usage?.totalTokens).toBe((result.usage?.promptTokens ?? 0) + 10);
    expect(result.attempts).toBe(1);
    expect(result.assistantMessage).toEqual({ role: 'assistant', content: result.content });
  });

  it('sends a streamed request with include_usage, the model, the tools and the key', async () => {
    await setup().provider.streamChat({ messages, tools });
    const [request] = server.chatRequests();
    expect(request?.body).toMatchObject({ model: 'gpt-test', stream: true, stream_options: { include_usage: true }, tools });
    expect(request?.headers['authorization']).toBe(`Bearer ${KEY}`);
  });

  it('assembles parallel tool calls streamed in interleaved deltas', async () => {
    server.setScenario({
      content: 'Reading.',
      toolCalls: [
        { name: 'builder_context_get', arguments: {} },
        { name: 'builder_step_read', arguments: { nodeId: 'step-01-select-story' } },
      ],
    });
    const deltas: Array<{ index: number; name: string }> = [];
    const result = completed(
      await setup().provider.streamChat({ messages, tools, onToolCallDelta: (d) => deltas.push({ index: d.index, name: d.name }) }),
    );
    expect(result.finishReason).toBe('tool_calls');
    expect(result.toolCalls).toEqual([
      { index: 0, id: 'call_0_0', name: 'builder_context_get', argumentsText: '{}', finishedCleanly: true },
      {
        index: 1,
        id: 'call_0_1',
        name: 'builder_step_read',
        argumentsText: '{"nodeId":"step-01-select-story"}',
        finishedCleanly: true,
      },
    ]);
    expect(new Set(deltas.map((d) => d.index))).toEqual(new Set([0, 1]));
    expect(result.assistantMessage.tool_calls).toHaveLength(2);
    expect(result.assistantMessage.content).toBe('Reading.');
  });

  it("passes DeepSeek's reasoning_content through so it can be sent back", async () => {
    server.setScenario({ content: 'Answer.', reasoningContent: 'Let me think about the step.' });
    const reasoning: string[] = [];
    const { provider } = setup();
    const result = completed(await provider.streamChat({ messages, onReasoningDelta: (t) => reasoning.push(t) }));
    expect(result.reasoningContent).toBe('Let me think about the step.');
    expect(reasoning.join('')).toBe('Let me think about the step.');
    expect(result.providerExtras).toEqual({ reasoning_content: 'Let me think about the step.' });
    expect(result.assistantMessage.reasoning_content).toBe('Let me think about the step.');

    await provider.streamChat({ messages: [...messages, result.assistantMessage, { role: 'user', content: 'Go on' }] });
    const sent = server.chatRequests()[1]?.body as { messages: Array<Record<string, unknown>> };
    expect(sent.messages[1]).toMatchObject({ role: 'assistant', reasoning_content: 'Let me think about the step.' });
  });

  it('flags arguments truncated by finish_reason length', async () => {
    server.failNext({ fault: 'truncated_tool_args', arguments: { content: 'a long step body' } });
    const result = completed(await setup().provider.streamChat({ messages, tools }));
    expect(result.finishReason).toBe('length');
    expect(result.toolCalls[0]).toMatchObject({ finishedCleanly: false, name: 'builder_context_get' });
    expect(() => JSON.parse(result.toolCalls[0]?.argumentsText ?? '')).toThrow();
  });

  it('turns arguments: null into empty argument text', async () => {
    server.failNext({ fault: 'null_arguments' });
    const result = completed(await setup().provider.streamChat({ messages, tools }));
    expect(result.toolCalls[0]).toMatchObject({ argumentsText: '', finishedCleanly: true });
  });

  it('reports an unknown tool name as it came, for the loop to refuse', async () => {
    server.failNext({ fault: 'unknown_tool' });
    const result = completed(await setup().provider.streamChat({ messages, tools }));
    expect(result.toolCalls[0]?.name).toBe('builder_does_not_exist');
  });

  it('assembles a huge argument', async () => {
    server.failNext({ fault: 'huge_arguments', bytes: 500_000 });
    const result = completed(await setup().provider.streamChat({ messages, tools }));
    expect((JSON.parse(result.toolCalls[0]?.argumentsText ?? '') as { content: string }).content).toHaveLength(500_000);
  });

  it('uses the fetch it is given', async () => {
    let calls = 0;
    const { provider } = setup({}, { fetch: (input, init) => ((calls += 1), fetch(input, init)) });
    completed(await provider.streamChat({ messages }));
    expect(calls).toBe(1);
  });

  it('sends no Authorization header when the profile has no key', async () => {
    const outcome = await setup({ apiKey: null }).provider.streamChat({ messages });
    expect(server.chatRequests()[0]?.headers['authorization']).toBeUndefined();
    // The scripted server, like OpenAI, wants a key.
    expect(failed(outcome).error.status).toBe(401);
  });

  it('lets an exception thrown by a callback through: it is a bug of the caller, not a provider failure', async () => {
    const bug = new Error('UI bug');
    await expect(
      setup().provider.streamChat({
        messages,
        onTextDelta: () => {
          throw bug;
        },
      }),
    ).rejects.toBe(bug);
  });
});

describe('errors map to the product codes', () => {
  const cases: Array<{ name: string; fault: FaultReply; code: string; kind: string; requests: number; hint?: RegExp; status?: number }> = [
    { name: '401 invalid key', fault: { fault: 'invalid_api_key' }, code: 'AI_PROVIDER_ERROR', kind: 'auth', requests: 1, hint: /Check the API key/, status: 401 },
    { name: '403', fault: { fault: 'http_error', status: 403 }, code: 'AI_PROVIDER_ERROR', kind: 'auth', requests: 1, hint: /base URL .* and the model \(gpt-test\) match/, status: 403 },
    { name: '404', fault: { fault: 'http_error', status: 404 }, code: 'AI_PROVIDER_ERROR', kind: 'not_found', requests: 1, hint: /model name/, status: 404 },
    {
      name: '400 context too long',
      fault: { fault: 'http_error', status: 400, body: { error: { message: "This model's maximum context length is 8192 tokens.", type: 'invalid_request_error', code: 'context_length_exceeded' } } },
      code: 'AI_PROVIDER_ERROR',
      kind: 'bad_request',
      requests: 1,
      hint: /too long for this model/,
      status: 400,
    },
    { name: 'insufficient_quota', fault: { fault: 'insufficient_quota' }, code: 'AI_PROVIDER_ERROR', kind: 'quota', requests: 1, hint: /credit|quota/i, status: 429 },
    { name: '500 every time', fault: { fault: 'server_error', status: 500 }, code: 'AI_PROVIDER_ERROR', kind: 'server', requests: 3, status: 500 },
    { name: '429 every time', fault: { fault: 'rate_limit', retryAfterSeconds: 1 }, code: 'AI_PROVIDER_ERROR', kind: 'rate_limit', requests: 3, hint: /Wait about 1 seconds/, status: 429 },
    { name: 'reset before headers every time', fault: { fault: 'reset_before_headers' }, code: 'AI_PROVIDER_UNREACHABLE', kind: 'unreachable', requests: 3, hint: /base URL/ },
    { name: 'non-JSON 200', fault: { fault: 'non_json' }, code: 'AI_PROVIDER_ERROR', kind: 'malformed', requests: 1, hint: /\/v1/ },
    { name: 'malformed SSE', fault: { fault: 'malformed_sse' }, code: 'AI_PROVIDER_ERROR', kind: 'malformed', requests: 1 },
    { name: 'error inside the stream', fault: { fault: 'stream_error' }, code: 'AI_PROVIDER_ERROR', kind: 'stream_broken', requests: 1 },
    { name: 'stream cut mid-text', fault: { fault: 'cut_mid_text' }, code: 'AI_PROVIDER_ERROR', kind: 'stream_broken', requests: 1 },
    { name: 'stream cut mid tool-call arguments', fault: { fault: 'cut_mid_tool_args' }, code: 'AI_PROVIDER_ERROR', kind: 'stream_broken', requests: 1 },
  ];

  it.each(cases)('$name → $code ($kind), $requests request(s)', async ({ fault, code, kind, requests, hint, status }) => {
    server.setScenario(fault);
    const outcome = failed(await setup().provider.streamChat({ messages, tools }));
    expect(outcome.error.code).toBe(code);
    expect(outcome.error.kind).toBe(kind);
    expect(outcome.error.status).toBe(status);
    if (hint) expect(outcome.error.hints.join('\n')).toMatch(hint);
    expect(outcome.error.message.length).toBeGreaterThan(20);
    expect(server.chatRequests()).toHaveLength(requests);
  });

  it('keeps what streamed before a cut, with no tool call finished cleanly', async () => {
    server.failNext({ fault: 'cut_mid_tool_args', afterChunks: 4 });
    const outcome = failed(await setup().provider.streamChat({ messages, tools }));
    expect(outcome.error.retryable).toBe(true);
    expect(outcome.partial?.toolCalls[0]).toMatchObject({ name: 'builder_context_get', finishedCleanly: false });
  });

  it('does not follow a redirect: it could lead to a private address', async () => {
    server.setScenario({ fault: 'http_error', status: 307, headers: { location: 'http://169.254.169.254/latest/meta-data' } });
    const outcome = failed(await setup().provider.streamChat({ messages }));
    expect(outcome.error).toMatchObject({ code: 'AI_PROVIDER_ERROR', kind: 'redirect', status: 307, retryable: false });
    expect(server.requests).toHaveLength(1);
    expect(await setup().provider.probe()).toMatchObject({ ok: false, code: 'AI_PROVIDER_ERROR' });
  });

  it('a refused connection is AI_PROVIDER_UNREACHABLE', async () => {
    const gone = await startScriptedOpenAI();
    await gone.close();
    const outcome = failed(await setup({ baseUrl: gone.url }).provider.streamChat({ messages }));
    expect(outcome.error).toMatchObject({ code: 'AI_PROVIDER_UNREACHABLE', retryable: true });
    expect(outcome.error.message).toMatch(/could not be reached \(the connection was refused\)/);
  });

  it('an unresolvable host is AI_PROVIDER_UNREACHABLE', async () => {
    const outcome = failed(await setup({ baseUrl: 'http://llm.invalid/v1' }).provider.streamChat({ messages }));
    expect(outcome.error.code).toBe('AI_PROVIDER_UNREACHABLE');
  });
});

describe('retries', () => {
  it('retries a 429 after its Retry-After, then succeeds', async () => {
    server.failNext({ fault: 'rate_limit', retryAfterSeconds: 1 });
    const { provider, sleeps } = setup();
    const result = completed(await provider.streamChat({ messages }));
    expect(server.chatRequests()).toHaveLength(2);
    expect(sleeps).toEqual([1000]);
    expect(result.attempts).toBe(2);
  });

  it('does not wait for a Retry-After longer than the cap, and says how long to wait', async () => {
    server.failNext({ fault: 'rate_limit', retryAfterSeconds: 30 });
    const { provider, sleeps } = setup();
    const outcome = failed(await provider.streamChat({ messages }));
    expect(server.chatRequests()).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(outcome.error.retryAfterMs).toBe(30_000);
    expect(outcome.error.hints[0]).toBe('Wait about 30 seconds, then try again.');
  });

  it('retries a 503 with backoff, then succeeds', async () => {
    server.failNext({ fault: 'server_error', status: 503 });
    const { provider, sleeps } = setup();
    completed(await provider.streamChat({ messages }));
    expect(server.chatRequests()).toHaveLength(2);
    expect(sleeps).toEqual([500]);
  });

  it('retries a connection reset before headers, then succeeds', async () => {
    server.failNext({ fault: 'reset_before_headers' });
    completed(await setup().provider.streamChat({ messages }));
    expect(server.chatRequests()).toHaveLength(2);
  });

  it('gives up after two retries, backing off 500 ms then 1 s', async () => {
    server.failNext({ fault: 'server_error', status: 502 }, 5);
    const { provider, sleeps } = setup();
    const outcome = failed(await provider.streamChat({ messages }));
    expect(outcome.error.kind).toBe('server');
    expect(sleeps).toEqual([500, 1000]);
    expect(server.chatRequests()).toHaveLength(3);
  });

  it('never retries insufficient_quota', async () => {
    server.failNext({ fault: 'insufficient_quota' }, 3);
    const { provider, sleeps } = setup();
    const outcome = failed(await provider.streamChat({ messages }));
    expect(outcome.error).toMatchObject({ code: 'AI_PROVIDER_ERROR', kind: 'quota', retryable: false, providerCode: 'insufficient_quota' });
    expect(server.chatRequests()).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('never retries once the stream has started', async () => {
    server.failNext({ fault: 'cut_mid_text' });
    const outcome = failed(await setup().provider.streamChat({ messages }));
    expect(outcome.partial?.content.length).toBeGreaterThan(0);
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('does not retry when the wait would pass the deadline', async () => {
    server.failNext({ fault: 'rate_limit', retryAfterSeconds: 3 });
    const { provider, sleeps } = setup({}, { deadlineSeconds: 2 });
    const outcome = failed(await provider.streamChat({ messages }));
    expect(outcome.error.kind).toBe('rate_limit');
    expect(sleeps).toEqual([]);
  });

  it('stops waiting when the caller aborts during the pause', async () => {
    server.failNext({ fault: 'rate_limit', retryAfterSeconds: 5 });
    const controller = new AbortController();
    const waits: number[] = [];
    // A pause that only the signal it is given can end: the test hangs unless the caller's abort reaches it.
    const sleep = (ms: number, signal: AbortSignal) =>
      new Promise<void>((resolve) => {
        waits.push(ms);
        signal.addEventListener('abort', () => resolve(), { once: true });
        controller.abort();
      });
    const provider = createChatProvider({ baseUrl: server.url, model: 'm', apiKey: KEY, timeoutSeconds: 20 }, { sleep });
    const outcome = await provider.streamChat({ messages, signal: controller.signal });
    expect(outcome.type).toBe('aborted');
    expect(waits).toEqual([5000]);
    expect(server.chatRequests()).toHaveLength(1);
  });
});

describe('abort and deadline', () => {
  it('aborts a hanging request when the signal fires', async () => {
    server.setScenario({ fault: 'hang' });
    const controller = new AbortController();
    const pending = setup().provider.streamChat({ messages, signal: controller.signal });
    // Abort once the server holds the request; a hang only ends by the abort or the 10 s deadline (a timeout failure).
    await vi.waitFor(() => expect(server.chatRequests()).toHaveLength(1));
    controller.abort();
    const outcome = await pending;
    expect(outcome.type).toBe('aborted');
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('aborts mid-stream and keeps the partial answer', async () => {
    const slow = await startScriptedOpenAI({ chunkDelayMs: 40, scenario: { content: 'word '.repeat(200) } });
    try {
      const controller = new AbortController();
      const provider = createChatProvider({ baseUrl: slow.url, model: 'm', apiKey: KEY, timeoutSeconds: 30 });
      const outcome = await provider.streamChat({
        messages,
        signal: controller.signal,
        onTextDelta: () => controller.abort(),
      });
      if (outcome.type !== 'aborted') throw new Error(`expected aborted, got ${outcome.type}`);
      // The stream ended early: only part of the 1000-character answer arrived before the abort.
      expect(outcome.partial.content.length).toBeGreaterThan(0);
      expect(outcome.partial.content.length).toBeLessThan('word '.repeat(200).length);
    } finally {
      await slow.close();
    }
  });

  it('fails with AI_PROVIDER_TIMEOUT when no answer starts within timeoutSeconds', async () => {
    server.setScenario({ fault: 'hang' });
    const { provider, sleeps } = setup({ timeoutSeconds: 0.5 });
    const outcome = failed(await provider.streamChat({ messages }));
    expect(outcome.error).toMatchObject({ code: 'AI_PROVIDER_TIMEOUT', kind: 'timeout', retryable: true });
    expect(outcome.error.message).toBe('The AI provider did not start answering within 0.5 seconds.');
    // A timeout is final: one request, no retry pause.
    expect(server.chatRequests()).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("times out a stream that is still running at the call's deadline, keeping the partial answer", async () => {
    const slow = await startScriptedOpenAI({ chunkDelayMs: 50, scenario: { content: 'word '.repeat(200) } });
    try {
      const provider = createChatProvider({ baseUrl: slow.url, model: 'm', apiKey: KEY, timeoutSeconds: 30 }, { deadlineSeconds: 0.4 });
      const outcome = failed(await provider.streamChat({ messages }));
      expect(outcome.error).toMatchObject({ code: 'AI_PROVIDER_TIMEOUT', message: 'The AI provider did not finish answering within 0.4 seconds.' });
      expect(outcome.partial?.content.length).toBeGreaterThan(0);
    } finally {
      await slow.close();
    }
  });
});

describe('probe', () => {
  it('answers ok with the latency and the model, from a small non-streamed completion', async () => {
    const result = await setup().provider.probe();
    expect(result).toEqual({ ok: true, latencyMs: expect.any(Number), model: 'gpt-test' });
    expect(server.chatRequests()[0]?.body).toMatchObject({ stream: false, max_tokens: 5 });
  });

  it('falls back to max_completion_tokens when the model refuses max_tokens', async () => {
    server.setScenario(({ body }) =>
      'max_tokens' in body
        ? {
            fault: 'http_error',
            status: 400,
            body: { error: { message: "Unsupported parameter: 'max_tokens'. Use 'max_completion_tokens' instead.", type: 'invalid_request_error', param: 'max_tokens', code: 'unsupported_parameter' } },
          }
        : { content: 'OK' },
    );
    expect(await setup().provider.probe()).toMatchObject({ ok: true });
    expect(server.chatRequests()[1]?.body).toMatchObject({ max_completion_tokens: 5 });
  });

  it('reports a wrong key with hints', async () => {
    server.setScenario({ fault: 'invalid_api_key' });
    const result = await setup().provider.probe();
    expect(result).toMatchObject({ ok: false, code: 'AI_PROVIDER_ERROR' });
    if (result.ok) throw new Error('unreachable');
    expect(result.hints).toEqual([
      'Check the API key in your AI settings: it may be mistyped, expired or revoked.',
      `Check that the base URL (${new URL(server.url).host}) and the model (gpt-test) match the provider the key belongs to.`,
    ]);
  });

  it('reports a non-JSON answer as not OpenAI-compatible', async () => {
    server.setScenario({ fault: 'non_json' });
    expect(await setup().provider.probe()).toMatchObject({ ok: false, code: 'AI_PROVIDER_ERROR', message: expect.stringMatching(/not an OpenAI-compatible/) });
  });

  it('reports a hang as AI_PROVIDER_TIMEOUT', async () => {
    server.setScenario({ fault: 'hang' });
    expect(await setup({ timeoutSeconds: 0.3 }).provider.probe()).toMatchObject({ ok: false, code: 'AI_PROVIDER_TIMEOUT' });
  });

  it('does not retry: a test connection reports what it met', async () => {
    server.setScenario({ fault: 'server_error', status: 503 });
    expect(await setup().provider.probe()).toMatchObject({ ok: false, code: 'AI_PROVIDER_ERROR' });
    expect(server.chatRequests()).toHaveLength(1);
  });
});

describe('the API key never appears in an error', () => {
  const leaky: FaultReply[] = [
    { fault: 'invalid_api_key', echoKey: true },
    { fault: 'http_error', status: 400, body: { error: { message: `Bad header Authorization: Bearer ${KEY}`, type: 'invalid_request_error' } } },
    { fault: 'http_error', status: 403, body: `<html>key ${KEY} is not allowed</html>` },
    { fault: 'http_error', status: 500, body: { error: { message: `internal: api_key=${KEY}` } } },
    { fault: 'insufficient_quota' },
    { fault: 'stream_error' },
  ];

  it.each(leaky)('$fault', async (fault) => {
    server.setScenario(fault);
    const { provider } = setup();
    const outcome = failed(await provider.streamChat({ messages }));
    const probe = await provider.probe();
    const everything = JSON.stringify([outcome.error.message, outcome.error.hints, outcome.error.toErrorBody(), probe]);
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain(KEY.slice(3));
  });

  it('also when the key has no recognisable shape', async () => {
    const odd = 'canary-Z9y8X7w6V5u4';
    server.setScenario({ fault: 'invalid_api_key', echoKey: true });
    const outcome = failed(await setup({ apiKey: odd }).provider.streamChat({ messages }));
    expect(outcome.error.message).toContain('***REDACTED***');
    expect(JSON.stringify(outcome.error.toErrorBody())).not.toContain(odd);
  });
});
