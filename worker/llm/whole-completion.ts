// A server that does not stream: asked for a stream, some OpenAI-compatible servers (small local ones,
// proxies that buffer) answer with one `application/json` chat completion. That answer is complete, so
// it is read as the one chunk a stream of it would add up to — text, reasoning, tool calls, finish reason
// and usage — and the turn goes on as if it had streamed. A JSON body that is an error is thrown as the
// SDK throws an error event inside a stream; server-sent events under a JSON label are read as events;
// anything else yields no chunk (the provider reports it as not OpenAI-compatible).

import { APIError } from 'openai/core/error';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import { MAX_RESPONSE_CHARS, ResponseTooLargeError } from './stream-assembler.ts';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** True when the response says its body is JSON (so it is not a server-sent event stream). */
export function isJsonResponse(response: Response): boolean {
  const mediaType = response.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() ?? '';
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

function isChatCompletion(value: unknown): value is ChatCompletion {
  return isRecord(value) && Array.isArray(value['choices']);
}

/**
 * The chunk a stream of `completion` adds up to. A choice's message becomes its delta (its text
 * fields, provider extras such as `reasoning_content` included); tool calls get the `index` a stream gives them. A
 * choice without a finish reason is still a finished answer (the body is whole), so it gets the
 * reason its message implies.
 */
export function chunkOfCompletion(completion: ChatCompletion): ChatCompletionChunk {
  const choices = completion.choices.map((choice, position): ChatCompletionChunk.Choice => {
    const message: Record<string, unknown> = isRecord(choice.message) ? choice.message : {};
    const { tool_calls: calls, ...rest } = message;
    const toolCalls = Array.isArray(calls) ? calls.filter(isRecord).map((call, index) => ({ ...call, index })) : [];
    // Text fields only (content, reasoning) and content as a list of parts (stream-assembler.ts
    // contentParts): a message's other objects and lists (annotations, audio) are not part of what
    // a stream sends, nor of what goes back to the model.
    const text = Object.fromEntries(Object.entries(rest).filter(([key, value]) => typeof value === 'string' || (key === 'content' && Array.isArray(value))));
    const delta = { ...text, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) } as ChatCompletionChunk.Choice.Delta;
    return {
      index: typeof choice.index === 'number' ? choice.index : position,
      delta,
      finish_reason: choice.finish_reason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
      logprobs: null,
    };
  });
  return {
    id: typeof completion.id === 'string' ? completion.id : '',
    object: 'chat.completion.chunk',
    created: typeof completion.created === 'number' ? completion.created : 0,
    model: typeof completion.model === 'string' ? completion.model : '',
    choices,
    ...(isRecord(completion.usage) ? { usage: completion.usage } : {}),
  };
}

/**
 * The most bytes of one JSON answer (or one line of a stream) read: room for MAX_RESPONSE_CHARS
 * characters however JSON escapes them (`\uXXXX` is six bytes). What it gives is held to
 * MAX_RESPONSE_CHARS itself.
 */
export const MAX_BODY_BYTES = 6 * MAX_RESPONSE_CHARS + 64 * 1024;

/** The body as text, refused (and its download stopped) once it passes `maxBytes`. */
async function cappedText(response: Response, controller: AbortController, maxBytes: number, onBytes: (() => void) | undefined): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    onBytes?.();
    size += value.byteLength;
    if (size > maxBytes) {
      controller.abort();
      await reader.cancel().catch(() => undefined);
      throw new ResponseTooLargeError(MAX_RESPONSE_CHARS);
    }
    parts.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/**
 * The JSON answer to a stream request as chunks: one for a chat completion, none for anything else.
 * An abort while the body is read ends it silently, as the SDK's stream does. `onBytes` hears of
 * every piece of the body as it arrives.
 */
export async function* wholeCompletionChunks(
  response: Response,
  controller: AbortController,
  readEvents: (events: Response) => AsyncIterable<ChatCompletionChunk>,
  onBytes?: () => void,
): AsyncGenerator<ChatCompletionChunk> {
  let text: string;
  try {
    text = await cappedText(response, controller, MAX_BODY_BYTES, onBytes);
  } catch (error) {
    if (controller.signal.aborted && !(error instanceof ResponseTooLargeError)) return;
    throw error;
  }
  // A stream sent under a JSON content type (a proxy that relabels it): read as the events it is.
  if (/^\s*(data|event|id|retry):/.test(text)) {
    yield* readEvents(new Response(text, { status: response.status, headers: { 'content-type': 'text/event-stream' } }));
    return;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return;
  }
  if (isRecord(body) && body['error'] != null) throw new APIError(undefined, body['error'] as object, undefined, response.headers);
  if (isChatCompletion(body)) yield chunkOfCompletion(body);
}
