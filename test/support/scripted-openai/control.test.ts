// The control API (control.ts) through HTTP, with the real openai SDK as the model's client and the
// workerd-side helper (test/workers/scripted-model.ts, fetch only) as the control client.
import OpenAI, { APIUserAbortError, RateLimitError } from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { scriptModel } from '../../workers/scripted-model.ts';
import { startScriptedOpenAI, type ScriptedOpenAI } from './server.ts';

const API_KEY = 'sk-control-test-key-0123456789';
const server: ScriptedOpenAI = await startScriptedOpenAI({ control: true });
const client = new OpenAI({ baseURL: server.url, apiKey: API_KEY, maxRetries: 0 });
const root = server.url.replace(/\/v1$/, '');

afterAll(() => server.close());
beforeEach(() => server.reset());

const tools: ChatCompletionTool[] = [
  { type: 'function', function: { name: 'builder_step_read', parameters: { type: 'object', properties: { nodeId: { type: 'string' } } } } },
];
const hello: ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are the builder assistant.' },
  { role: 'user', content: 'Read step one' },
];

async function post(path: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${root}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

async function text(model: string, messages: ChatCompletionMessageParam[] = hello): Promise<string | null | undefined> {
  const completion = await client.chat.completions.create({ model, messages });
  return completion.choices[0]?.message.content;
}

describe('scripts', () => {
  it('plays step k for a conversation with k assistant turns, streamed, then whenDone', async () => {
    const scripted = await scriptModel(server.url, [
      { content: 'Let me look.', toolCalls: [{ id: 'call_read_1', name: 'builder_step_read', arguments: { nodeId: 'step-01' } }] },
      { content: 'Step one selects the story.' },
    ]);
    expect(scripted.model).toMatch(/^script-\d+-[0-9a-f]{8}$/);

    const first = await client.chat.completions.create({ model: scripted.model, messages: hello, tools });
    const call = first.choices[0]?.message.tool_calls?.[0];
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    expect(call?.type === 'function' ? [call.id, call.function.name, JSON.parse(call.function.arguments)] : call).toEqual([
      'call_read_1',
      'builder_step_read',
      { nodeId: 'step-01' },
    ]);

    const withResult: ChatCompletionMessageParam[] = [
      ...hello,
      { role: 'assistant', content: 'Let me look.', tool_calls: first.choices[0]!.message.tool_calls! },
      { role: 'tool', tool_call_id: 'call_read_1', content: '{"title":"Select story"}' },
    ];
    const stream = await client.chat.completions.create({ model: scripted.model, messages: withResult, tools, stream: true });
    let streamed = '';
    for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? '';
    expect(streamed).toBe('Step one selects the story.');

    const done = [...withResult, { role: 'assistant' as const, content: streamed }, { role: 'user' as const, content: 'And?' }];
    expect(await text(scripted.model, done)).toBe('The scripted model has played every step of its script.');
  });

  it('answers with the given whenDone and names the model after `name`', async () => {
    const scripted = await scriptModel(server.url, [], { whenDone: { content: 'Nothing more.' }, name: 'empty' });
    expect(scripted.model).toMatch(/^script-empty-\d+$/);
    expect(await text(scripted.model)).toBe('Nothing more.');
  });

  it('plays faults from a script', async () => {
    const scripted = await scriptModel(server.url, [{ fault: 'rate_limit', retryAfterSeconds: 3 }]);
    const error = await client.chat.completions.create({ model: scripted.model, messages: hello }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).headers?.get('retry-after')).toBe('3');
  });

  it('paces the stream chunks of one step with chunkDelayMs', async () => {
    const scripted = await scriptModel(server.url, [{ reply: { content: 'Paced words arrive one by one.' }, chunkDelayMs: 20 }]);
    // A monotonic clock (Date.now can step) and a lower bound only: a slow machine makes the gaps longer, never shorter.
    const started = performance.now();
    const stream = await client.chat.completions.create({ model: scripted.model, messages: hello, stream: true });
    let chunks = 0;
    for await (const _ of stream) chunks += 1;
    expect(chunks).toBeGreaterThan(4);
    // The server sleeps chunkDelayMs before every chunk but the first; 1 ms per gap covers timer rounding.
    expect(performance.now() - started).toBeGreaterThanOrEqual((chunks - 1) * 19);
  });
});

describe('per-model queue', () => {
  it('plays queued replies before the script, `times` times, then the script goes on', async () => {
    const scripted = await scriptModel(server.url, [{ content: 'From the script.' }]);
    await scripted.queue({ fault: 'rate_limit' }, 2);
    await scripted.queue({ content: 'Queued text.' });

    for (let i = 0; i < 2; i++) {
      await expect(client.chat.completions.create({ model: scripted.model, messages: hello })).rejects.toBeInstanceOf(RateLimitError);
    }
    expect(await text(scripted.model)).toBe('Queued text.');
    expect(await text(scripted.model)).toBe('From the script.');
  });

  it('queues for a model without a script, in front of its scenario', async () => {
    const response = await post('/_scripted/models/scripted-echo/next', { reply: { content: 'Queued for echo.' } });
    expect(response).toEqual({ status: 200, json: { model: 'scripted-echo', queued: 1 } });
    expect(await text('scripted-echo')).toBe('Queued for echo.');
    expect(await text('scripted-echo')).toContain('scripted echo model');
  });
});

describe('delays and aborts', () => {
  it('holds a delayed reply, counts it pending, and drops it when the SDK aborts', async () => {
    const scripted = await scriptModel(server.url, [{ reply: { content: 'Too late.' }, delayMs: 60_000 }]);
    const controller = new AbortController();
    const call = client.chat.completions.create({ model: scripted.model, messages: hello }, { signal: controller.signal }).catch((e: unknown) => e);

    await vi.waitFor(async () => expect(await scripted.pending()).toBe(1), { timeout: 5_000, interval: 10 });
    controller.abort();
    expect(await call).toBeInstanceOf(APIUserAbortError);
    // The reply is held for 60 s, longer than the test may run: the request closed because the client left.
    await vi.waitFor(async () => expect(await scripted.pending()).toBe(0), { timeout: 5_000, interval: 10 });

    // The server did not go on to answer the dropped call: the next one is served at once.
    await scripted.queue({ content: 'Right away.' });
    expect(await text(scripted.model)).toBe('Right away.');
  });

  it('counts nothing pending once replies are complete', async () => {
    const scripted = await scriptModel(server.url, [{ content: 'Quick.' }]);
    await text(scripted.model);
    await vi.waitFor(async () => expect(await scripted.pending()).toBe(0), { timeout: 5_000, interval: 10 });
  });
});

describe('recordings', () => {
  it('records the model requests oldest first, Authorization redacted, with body and call index', async () => {
    const scripted = await scriptModel(server.url, [{ content: 'One.' }]);
    await text('scripted-echo');
    await client.chat.completions.create({ model: scripted.model, messages: hello, tools });
    await text(scripted.model, [...hello, { role: 'assistant', content: 'One.' }, { role: 'user', content: 'Two?' }]);

    const requests = await scripted.requests();
    expect(requests.map((r) => r.callIndex)).toEqual([1, 2]);
    expect(requests[0]?.headers['authorization']).toBe('Bearer ***REDACTED***');
    expect(requests[0]?.body).toMatchObject({
      model: scripted.model,
      messages: [{ role: 'system', content: 'You are the builder assistant.' }, { role: 'user', content: 'Read step one' }],
      tools: [{ type: 'function', function: { name: 'builder_step_read' } }],
    });
    expect(requests[1]?.receivedAt).toBeGreaterThanOrEqual(requests[0]!.receivedAt);
    expect(JSON.stringify(requests)).not.toContain(API_KEY);
    // Control calls are not model traffic.
    expect(server.requests.every((r) => r.path.startsWith('/v1/'))).toBe(true);
  });

  it('forgets a model: script, queue and recordings', async () => {
    const scripted = await scriptModel(server.url, [{ content: 'Scripted.' }]);
    await scripted.queue({ content: 'Queued.' });
    await text(scripted.model);
    await scripted.forget();

    expect(await scripted.requests()).toEqual([]);
    expect(await text(scripted.model)).toContain('scripted echo model');
  });

  it('reset() forgets every script', async () => {
    const scripted = await scriptModel(server.url, [{ content: 'Scripted.' }]);
    server.reset();
    expect(await text(scripted.model)).toContain('scripted echo model');
  });
});

describe('isolation', () => {
  it('keeps two models apart: names, queues, steps and recordings', async () => {
    const a = await scriptModel(server.url, [{ content: 'A0' }, { content: 'A1' }]);
    const b = await scriptModel(server.url, [{ content: 'B0' }]);
    expect(a.model).not.toBe(b.model);
    await a.queue({ content: 'A queued' });

    const [b0, aQueued] = await Promise.all([text(b.model), text(a.model)]);
    expect([b0, aQueued]).toEqual(['B0', 'A queued']);
    expect(await text(a.model)).toBe('A0');
    expect((await a.requests()).map((r) => (r.body as { model: string }).model)).toEqual([a.model, a.model]);
    expect(await b.requests()).toHaveLength(1);
  });
});

describe('validation and routing', () => {
  it('answers 400 naming the field when a script is not valid', async () => {
    const cases: Array<[unknown, string]> = [
      [{ steps: [{ fault: 'not_a_fault' }] }, 'steps[0].fault'],
      [{ steps: [{ content: 'ok' }, { toolCalls: [{ name: 'x' }] }] }, 'steps[1].toolCalls[0].arguments'],
      [{ steps: [{ reply: { content: 'x' }, delayMs: 'soon' }] }, 'steps[0].delayMs'],
      [{ steps: [{ contnet: 'typo' }] }, 'Unrecognized key: "contnet"'],
      [{ steps: 'x' }, 'expected array'],
      [{ steps: [], whenDone: { fault: 'http_error' } }, 'whenDone.status'],
      [{ steps: [], name: 'no spaces' }, 'name: 1 to 48'],
    ];
    for (const [body, mentioned] of cases) {
      const { status, json } = await post('/_scripted/scripts', body);
      expect(status, JSON.stringify(body)).toBe(400);
      expect(json.error.code).toBe('invalid_control_body');
      expect(json.error.message).toContain(mentioned);
    }
    const notJson = await fetch(`${root}/_scripted/scripts`, { method: 'POST', body: 'steps please' });
    expect(notJson.status).toBe(400);
  });

  it('answers 400 when a queued reply is not valid', async () => {
    const { status, json } = await post('/_scripted/models/m/next', { reply: { content: 'x' }, times: 0 });
    expect(status).toBe(400);
    expect(json.error.message).toContain('times');
  });

  it('answers 404 for unknown control routes, and for all of them when control is off', async () => {
    expect((await fetch(`${root}/_scripted/models/m/unknown`)).status).toBe(404);
    expect((await fetch(`${root}/_scripted/scripts`)).status).toBe(404);

    const plain = await startScriptedOpenAI();
    try {
      const res = await fetch(`${plain.url.replace(/\/v1$/, '')}/_scripted/scripts`, { method: 'POST', body: '{"steps":[]}' });
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain('control: true');
    } finally {
      await plain.close();
    }
  });

  it('reads and clears a model whose name needs encoding', async () => {
    const model = 'openai/gpt-4o mini';
    await text(model);
    const encoded = encodeURIComponent(model);
    const res = await fetch(`${root}/_scripted/models/${encoded}/requests`);
    expect(((await res.json()) as { requests: unknown[] }).requests).toHaveLength(1);
    const forgotten = await fetch(`${root}/_scripted/models/${encoded}`, { method: 'DELETE' });
    expect(await forgotten.json()).toEqual({ model, forgotten: true });
  });
});
