// A model server that never stops: a stream past the largest answer a turn can use, one endless line,
// a JSON body without end. Each is cut off near the limit (the download stopped, not read to its end)
// and reported as AI_PROVIDER_ERROR (too_large), never retried. The server is a `fetch` that streams
// bytes as it is pulled, so the test sees how much was read.

import { describe, expect, it } from 'vitest';
import { createChatProvider } from './provider.ts';
import { MAX_RESPONSE_CHARS } from './stream-assembler.ts';
import { MAX_BODY_BYTES } from './whole-completion.ts';
import type { ChatMessage } from '../../shared/llm/types.ts';

const messages: ChatMessage[] = [{ role: 'user', content: 'Improve step one' }];
const encoder = new TextEncoder();

/** A server answering every request with `next()`'s bytes, pulled one piece at a time until it returns null. */
function floodServer(contentType: string, next: (n: number) => string | null) {
  const seen = { requests: 0, pulled: 0, bytes: 0, cancelled: false };
  const fetch = async (): Promise<Response> => {
    seen.requests += 1;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const piece = next(seen.pulled++);
        if (piece === null) {
          controller.close();
          return;
        }
        const bytes = encoder.encode(piece);
        seen.bytes += bytes.byteLength;
        controller.enqueue(bytes);
      },
      cancel() {
        seen.cancelled = true;
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': contentType } });
  };
  const provider = createChatProvider({ baseUrl: 'https://models.example/v1', model: 'flood', apiKey: 'sk-flood', timeoutSeconds: 60 }, { fetch, sleep: async () => {} });
  return { provider, seen };
}

const chunk = (content: string) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'flood', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

async function tooLarge(provider: ReturnType<typeof floodServer>['provider'], onTextDelta?: (text: string) => void) {
  const outcome = await provider.streamChat({ messages, ...(onTextDelta ? { onTextDelta } : {}) });
  if (outcome.type !== 'failed') throw new Error(`expected failed, got ${outcome.type}`);
  return outcome.error;
}

describe('a model server that never stops', () => {
  it('cuts a stream off at the largest answer a turn can use, passing on no more text than that', async () => {
    const piece = 'x'.repeat(8_000);
    const { provider, seen } = floodServer('text/event-stream', () => chunk(piece));
    let streamed = 0;
    const error = await tooLarge(provider, (text) => (streamed += text.length));
    expect(error).toMatchObject({ code: 'AI_PROVIDER_ERROR', kind: 'too_large', retryable: false });
    expect(error.message).toContain('cut off');
    expect(streamed).toBeLessThanOrEqual(MAX_RESPONSE_CHARS);
    expect(streamed).toBeGreaterThan(MAX_RESPONSE_CHARS - piece.length * 2);
    // The download stopped there: a few pieces past the limit at most, and only one request.
    expect(seen.pulled * piece.length).toBeLessThan(MAX_RESPONSE_CHARS + 20 * piece.length);
    expect(seen.requests).toBe(1);
  });

  it('cuts off one endless line before it is ever parsed', async () => {
    const piece = 'a'.repeat(256 * 1024);
    const { provider, seen } = floodServer('text/event-stream', (n) => (n === 0 ? 'data: {"choices":[{"delta":{"content":"' : piece));
    const error = await tooLarge(provider);
    expect(error).toMatchObject({ code: 'AI_PROVIDER_ERROR', kind: 'too_large' });
    expect(seen.bytes).toBeGreaterThan(MAX_BODY_BYTES);
    expect(seen.bytes).toBeLessThan(MAX_BODY_BYTES + 20 * piece.length);
    expect(seen.requests).toBe(1);
  });

  it('cuts off a JSON answer without end, and refuses a whole one whose text is past the limit', async () => {
    const piece = 'b'.repeat(256 * 1024);
    const endless = floodServer('application/json', (n) => (n === 0 ? '{"choices":[{"index":0,"message":{"role":"assistant","content":"' : piece));
    expect(await tooLarge(endless.provider)).toMatchObject({ kind: 'too_large' });
    expect(endless.seen.bytes).toBeLessThan(MAX_BODY_BYTES + 20 * piece.length);

    const content = 'c'.repeat(MAX_RESPONSE_CHARS + 1);
    const whole = JSON.stringify({ id: 'w', object: 'chat.completion', created: 1, model: 'flood', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] });
    const big = floodServer('application/json', (n) => (n === 0 ? whole : null));
    expect(await tooLarge(big.provider)).toMatchObject({ kind: 'too_large' });
  });

  it('takes an answer just under the limit whole', async () => {
    const content = 'd'.repeat(MAX_RESPONSE_CHARS - 10);
    const whole = JSON.stringify({ id: 'w', object: 'chat.completion', created: 1, model: 'flood', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] });
    const { provider } = floodServer('application/json', (n) => (n === 0 ? whole : null));
    const outcome = await provider.streamChat({ messages });
    expect(outcome.type).toBe('completed');
    if (outcome.type === 'completed') expect(outcome.result.content.length).toBe(content.length);
  });
});
