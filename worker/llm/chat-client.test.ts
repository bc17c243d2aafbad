/** The chat client's request body: JSON.stringify's text exactly, with a frozen prompt or tool list serialised once. */
import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../shared/deep-freeze.ts';
import { ChatClient, requestJson } from './chat-client.ts';

describe('the request body', () => {
  it('is JSON.stringify of the body, byte for byte, frozen parts or not', () => {
    const prompt = deepFreeze([
      { role: 'system', content: 'You edit "BMAD" packages.\n\u2028 报销 🔎' },
      { role: 'user', content: 'Read the step.', name: undefined },
    ]);
    const tools = deepFreeze([{ type: 'function', function: { name: 'builder_step_read', parameters: { type: 'object', required: ['nodeId'] } } }]);
    const bodies = [
      { model: 'm', messages: [...prompt, { role: 'tool', tool_call_id: 'c1', content: '{"ok":true}' }], tools, stream: true, stream_options: { include_usage: true } },
      { model: 'm', messages: prompt, stream: false, max_tokens: 5 },
      { model: 'm', messages: [prompt[0], undefined, () => 1, null, 3], tools: undefined, skip: () => 1, stream: true },
      { model: 'm', messages: [], nested: { a: [1, { b: undefined }], c: deepFreeze({ d: 'e' }) } },
    ];
    for (const body of bodies) expect(requestJson(body)).toBe(JSON.stringify(body));
  });

  it('serialises a frozen message once across requests, and a message that is not frozen every time', () => {
    let frozenCalls = 0;
    let openCalls = 0;
    const frozen = Object.freeze({ role: 'system', toJSON: () => (frozenCalls++, { role: 'system', content: 'kept' }) });
    const open = { role: 'tool', toJSON: () => (openCalls++, { role: 'tool', content: 'new' }) };
    const first = requestJson({ model: 'm', messages: [frozen, open] });
    const second = requestJson({ model: 'm', messages: [frozen, open, open] });
    expect(first).toBe('{"model":"m","messages":[{"role":"system","content":"kept"},{"role":"tool","content":"new"}]}');
    expect(second).toBe('{"model":"m","messages":[{"role":"system","content":"kept"},{"role":"tool","content":"new"},{"role":"tool","content":"new"}]}');
    expect(frozenCalls).toBe(1);
    expect(openCalls).toBe(3);
  });

  it('is what the client sends', async () => {
    const sent: string[] = [];
    const client = new ChatClient({
      baseURL: 'https://models.example/v1',
      authHeaders: {},
      fetch: async (_input, init) => {
        sent.push(String(init?.body));
        return new Response('{"choices":[]}', { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    const messages = deepFreeze([{ role: 'user' as const, content: 'Hi.' }]);
    await client.create({ model: 'm', messages, stream: false }, { signal: new AbortController().signal, timeout: 5_000 });
    expect(sent).toEqual([JSON.stringify({ model: 'm', messages, stream: false })]);
  });
});

describe('the end of a stream', () => {
  /** A client whose server streams `pieces` as they are given (each its own read). */
  function clientStreaming(pieces: string[]): ChatClient {
    const bytes = pieces.map((piece) => new TextEncoder().encode(piece));
    return new ChatClient({
      baseURL: 'https://models.example/v1',
      authHeaders: {},
      fetch: async () =>
        new Response(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              const next = bytes.shift();
              if (next) controller.enqueue(next);
              else controller.close();
            },
          }),
          { status: 200, headers: { 'content-type': 'text/event-stream' } },
        ),
    });
  }

  async function read(pieces: string[]): Promise<{ chunks: number; endedByServer: boolean }> {
    const stream = await clientStreaming(pieces).stream({ model: 'm', messages: [], stream: true }, { signal: new AbortController().signal, timeout: 5_000 });
    let chunks = 0;
    for await (const _ of stream) chunks++;
    return { chunks, endedByServer: stream.endedByServer };
  }

  const event = `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }] })}\n\n`;

  it('says the server ended it when its last event is [DONE], even split across two reads or without the space', async () => {
    expect(await read([event, 'data: [DONE]\n\n'])).toEqual({ chunks: 1, endedByServer: true });
    expect(await read([event + 'data: [DO', 'NE]\r\n\r\n'])).toEqual({ chunks: 1, endedByServer: true });
    expect(await read([event, 'data:[DONE]\n\n'])).toEqual({ chunks: 1, endedByServer: true });
  });

  it('says it did not when the body just stopped, or [DONE] came only inside a text', async () => {
    expect(await read([event])).toEqual({ chunks: 1, endedByServer: false });
    const quoting = `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: { content: '\ndata: [DONE]' }, finish_reason: null }] })}\n\n`;
    expect(await read([event, quoting])).toEqual({ chunks: 2, endedByServer: false });
  });
});
