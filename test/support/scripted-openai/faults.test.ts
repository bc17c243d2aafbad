import OpenAI, {
  APIConnectionError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  InternalServerError,
  PermissionDeniedError,
  RateLimitError,
} from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startScriptedOpenAI } from './server.ts';

const KEY = 'sk-test-faults-0123456789abcdef';
const server = await startScriptedOpenAI();
// logLevel off: the SDK logs malformed SSE lines to the console, which is noise here.
const client = new OpenAI({ baseURL: server.url, apiKey: KEY, maxRetries: 0, logLevel: 'off' });

afterAll(() => server.close());
beforeEach(() => server.reset());

const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'hi' }];
const tools: ChatCompletionTool[] = [
  { type: 'function', function: { name: 'builder_step_read', parameters: { type: 'object', properties: {} } } },
];

const create = () => client.chat.completions.create({ model: 'm', messages, tools });
const createStream = () => client.chat.completions.create({ model: 'm', messages, tools, stream: true });

/** Reads a stream to its end, keeping what arrived before any failure. */
async function drain(stream: AsyncIterable<ChatCompletionChunk>) {
  const seen = { content: '', args: '', names: [] as string[], finishReason: null as string | null, chunks: 0, error: undefined as unknown };
  try {
    for await (const chunk of stream) {
      seen.chunks += 1;
      const choice = chunk.choices[0];
      seen.content += choice?.delta.content ?? '';
      for (const call of choice?.delta.tool_calls ?? []) {
        if (call.function?.name) seen.names.push(call.function.name);
        seen.args += call.function?.arguments ?? '';
      }
      if (choice?.finish_reason) seen.finishReason = choice.finish_reason;
    }
  } catch (error) {
    seen.error = error;
  }
  return seen;
}

describe('HTTP faults, as the openai SDK reports them', () => {
  it('429 rate limit carries Retry-After and an OpenAI error body', async () => {
    server.failNext({ fault: 'rate_limit', retryAfterSeconds: 2 });
    const error = await create().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).status).toBe(429);
    expect((error as RateLimitError).code).toBe('rate_limit_exceeded');
    expect((error as RateLimitError).headers.get('retry-after')).toBe('2');
  });

  it('429 insufficient_quota is told apart by its code', async () => {
    server.failNext({ fault: 'insufficient_quota' });
    const error = await create().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).code).toBe('insufficient_quota');
    expect((error as RateLimitError).type).toBe('insufficient_quota');
  });

  it.each([500, 503] as const)('%i server error', async (status) => {
    server.failNext({ fault: 'server_error', status });
    const error = await create().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).status).toBe(status);
  });

  it('401 invalid api key masks the key like OpenAI, unless asked to echo it', async () => {
    server.failNext({ fault: 'invalid_api_key' });
    const masked = await create().catch((e: unknown) => e);
    expect(masked).toBeInstanceOf(AuthenticationError);
    expect((masked as AuthenticationError).code).toBe('invalid_api_key');
    expect((masked as Error).message).not.toContain(KEY);
    expect((masked as Error).message).toContain(KEY.slice(-4));

    server.failNext({ fault: 'invalid_api_key', echoKey: true });
    const echoed = await create().catch((e: unknown) => e);
    expect((echoed as Error).message).toContain(KEY);
  });

  it('any other status with http_error', async () => {
    server.failNext({ fault: 'http_error', status: 403, body: { error: { message: 'Region not allowed', type: 'forbidden' } } });
    const error = await create().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect((error as Error).message).toContain('Region not allowed');
  });

  it('a connection reset before headers is an APIConnectionError', async () => {
    server.failNext({ fault: 'reset_before_headers' });
    const error = await create().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('a hanging request ends when the client aborts', async () => {
    server.failNext({ fault: 'hang' });
    const controller = new AbortController();
    const pending = client.chat.completions.create({ model: 'm', messages }, { signal: controller.signal }).catch((e: unknown) => e);
    // Abort only once the server holds the request: the hang itself never answers.
    await vi.waitFor(() => expect(server.chatRequests()).toHaveLength(1));
    controller.abort();
    expect(await pending).toBeInstanceOf(APIUserAbortError);
  });

  it('a hanging request ends when the server closes', async () => {
    const own = await startScriptedOpenAI();
    own.failNext({ fault: 'hang' });
    const ownClient = new OpenAI({ baseURL: own.url, apiKey: KEY, maxRetries: 0 });
    const pending = ownClient.chat.completions.create({ model: 'm', messages }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(own.chatRequests()).toHaveLength(1));
    await own.close();
    expect(await pending).toBeInstanceOf(APIConnectionError);
  });

  it('a non-JSON 200 body comes back as text, and as an empty stream', async () => {
    server.failNext({ fault: 'non_json' });
    const body: unknown = await create();
    expect(typeof body).toBe('string');
    expect(body).toContain('Bad Gateway');

    server.failNext({ fault: 'non_json' });
    const seen = await drain(await createStream());
    expect(seen).toMatchObject({ chunks: 0, error: undefined });
  });

  it('failNext plays a fault once, then the scenario answers again', async () => {
    server.failNext({ fault: 'server_error', status: 503 });
    await expect(create()).rejects.toBeInstanceOf(InternalServerError);
    const completion = await create();
    expect(completion.choices[0]?.message.content).toContain('scripted echo model');
  });

  it('failNext with a count plays the fault that many times', async () => {
    server.failNext({ fault: 'rate_limit' }, 2);
    await expect(create()).rejects.toBeInstanceOf(RateLimitError);
    await expect(create()).rejects.toBeInstanceOf(RateLimitError);
    await expect(create()).resolves.toBeTruthy();
  });

  it('a scenario can return a fault on every call', async () => {
    server.setScenario({ fault: 'server_error', status: 500 });
    await expect(create()).rejects.toBeInstanceOf(InternalServerError);
    await expect(create()).rejects.toBeInstanceOf(InternalServerError);
  });
});

describe('stream faults', () => {
  it('a stream cut mid-text fails after partial text, and is not an abort', async () => {
    server.failNext({ fault: 'cut_mid_text', afterChunks: 3 });
    const seen = await drain(await createStream());
    expect(seen.content.length).toBeGreaterThan(0);
    expect(seen.finishReason).toBeNull();
    expect(seen.error).toBeInstanceOf(Error);
    expect(seen.error).not.toBeInstanceOf(APIUserAbortError);
  });

  it('a stream cut inside tool-call arguments leaves invalid JSON', async () => {
    server.failNext({ fault: 'cut_mid_tool_args' });
    const seen = await drain(await createStream());
    expect(seen.names).toEqual(['builder_step_read']);
    expect(seen.args.length).toBeGreaterThan(0);
    expect(() => JSON.parse(seen.args)).toThrow();
    expect(seen.error).toBeInstanceOf(Error);
  });

  it('a malformed SSE line is a SyntaxError from the SDK', async () => {
    server.failNext({ fault: 'malformed_sse', afterChunks: 2 });
    const seen = await drain(await createStream());
    expect(seen.chunks).toBe(2);
    expect(seen.error).toBeInstanceOf(SyntaxError);
  });

  it('an error object inside the stream is an APIError without status', async () => {
    server.failNext({ fault: 'stream_error' });
    const seen = await drain(await createStream());
    expect(seen.error).toBeInstanceOf(APIError);
    expect((seen.error as APIError).status).toBeUndefined();
    expect((seen.error as Error).message).toContain('invalid response mid-stream');
  });

  it('a stalled stream sends its first chunks, then nothing on an open connection until the client aborts', async () => {
    server.failNext({ fault: 'stall_mid_stream', afterChunks: 2 });
    const controller = new AbortController();
    const stream = await client.chat.completions.create({ model: 'm', messages, stream: true }, { signal: controller.signal });
    let chunks = 0;
    const reading = (async () => {
      for await (const _ of stream) chunks++;
    })();
    await vi.waitFor(() => expect(chunks).toBe(2));
    controller.abort();
    await reading.catch(() => undefined);
    expect(chunks).toBe(2);
  });

  it('a non-streamed answer cut mid-body is a connection error', async () => {
    server.failNext({ fault: 'cut_mid_text' });
    await expect(create()).rejects.toBeInstanceOf(Error);
  });
});

describe('awkward tool calls', () => {
  it('finish_reason length with truncated arguments', async () => {
    server.failNext({ fault: 'truncated_tool_args', arguments: { content: 'a long text that is cut' }, keepChars: 16 });
    const seen = await drain(await createStream());
    expect(seen.finishReason).toBe('length');
    expect(seen.args).toBe('{"content":"a lo');
    expect(seen.error).toBeUndefined();
  });

  it('arguments: null, streamed and not', async () => {
    server.failNext({ fault: 'null_arguments' }, 2);
    const completion = await create();
    expect(completion.choices[0]?.message.tool_calls?.[0]).toMatchObject({ function: { name: 'builder_step_read', arguments: null } });
    const stream = await createStream();
    const deltas: unknown[] = [];
    for await (const chunk of stream) deltas.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
    expect(deltas).toEqual([{ index: 0, id: 'call_1_0', type: 'function', function: { name: 'builder_step_read', arguments: null } }]);
  });

  it('a tool that was not offered', async () => {
    server.failNext({ fault: 'unknown_tool' });
    const completion = await create();
    expect(completion.choices[0]?.message.tool_calls?.[0]).toMatchObject({ function: { name: 'builder_does_not_exist' } });
  });

  it('a huge argument of the configured size', async () => {
    server.failNext({ fault: 'huge_arguments', bytes: 1_000_000 });
    const seen = await drain(await createStream());
    expect(seen.error).toBeUndefined();
    const parsed = JSON.parse(seen.args) as { content: string };
    expect(parsed.content).toHaveLength(1_000_000);
  });
});
