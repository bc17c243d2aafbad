// A lean client for the one endpoint the provider adapter calls (POST /chat/completions), on fetch.
// It does what the openai SDK's client does for that call with retries off — same URL, key
// headers, timeout, abort, error classes and SSE reader (the SDK's own, from `openai/core/*`) —
// without the SDK's client class, which loads every resource of the OpenAI API (a third of the
// Worker bundle). provider.ts keeps the retry policy, deadline and classification.

import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai/core/error';
import { Stream } from 'openai/core/streaming';
import { normalizeChatCompletionChunk } from 'openai/lib/chat-completions/streaming';
import { VERSION } from 'openai/version';
import { MAX_BODY_BYTES, isJsonResponse, wholeCompletionChunks } from './whole-completion.ts';
import { MAX_RESPONSE_CHARS, ResponseTooLargeError } from './stream-assembler.ts';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from 'openai/resources/chat/completions';

export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface ChatClientOptions {
  /** Without a trailing slash, as providerEndpoint gives it. */
  baseURL: string;
  defaultQuery?: Record<string, string> | undefined;
  /** The key's header (`Authorization: Bearer …` or Azure's `api-key`), or none without a key. */
  authHeaders: Record<string, string>;
  fetch?: Fetch | undefined;
}

export interface CallOptions {
  signal: AbortSignal;
  /** Milliseconds until the response headers (streamed) or the whole body (not streamed). */
  timeout: number;
  /** Called when the response headers arrive and on every piece of a streamed body (the provider's silence limit). */
  onActivity?: () => void;
}

/** The SDK's stream logs through its client's logger; an object without one logs nothing, like our `logLevel: 'off'`. */
const SILENT_SDK_CLIENT = {} as never;

const isAbortError = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && 'name' in error && (error as { name: unknown }).name === 'AbortError';

function userAbort(signal: AbortSignal): APIUserAbortError {
  const error = new APIUserAbortError();
  Object.defineProperty(error, 'cause', { value: signal.reason, writable: true, configurable: true });
  return error;
}

/** The JSON of frozen values, kept while the value lives: a turn's prompt and tools go out on every request. */
const frozenJson = new WeakMap<object, string>();

function valueJson(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || !Object.isFrozen(value)) return JSON.stringify(value);
  let text = frozenJson.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    frozenJson.set(value, text);
  }
  return text;
}

/**
 * JSON.stringify(body), byte for byte, with the frozen parts (a value, or an element of an array
 * value, frozen all the way down by its owner) serialised once: only what is new in the
 * conversation is serialised again for each request.
 */
export function requestJson(body: object): string {
  const members: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    const text = Array.isArray(value) && !Object.isFrozen(value) ? `[${value.map((item) => valueJson(item) ?? 'null').join(',')}]` : valueJson(value);
    // As JSON.stringify: a member whose value has no JSON (undefined, a function) is left out.
    if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${members.join(',')}}`;
}

function safeJSON(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A streamed answer's chunks, and whether the server said it was over. */
export interface ChatStream extends AsyncIterable<ChatCompletionChunk> {
  /**
   * True once the stream's last event was `data: [DONE]`, or the answer came as one whole JSON body:
   * the server ended the answer itself. False when the body just stopped (a cut connection; LM
   * Studio and llama.cpp also end without it, after a finish reason).
   */
  readonly endedByServer: boolean;
}

/** The last event of a stream is `data: [DONE]` (a space after the colon is optional, RFC 8895 §9.2.6). */
const DONE_AT_END = /(?:^|[\r\n])data: ?\[DONE\]\s*$/;
/** Bytes of each piece's end read to find it: the SDK stops reading at `[DONE]`, so it ends the last piece read. */
const DONE_WINDOW_BYTES = 64;

/**
 * The response with no line longer than one whole answer may be: the SDK's event reader keeps a line
 * until its newline, so a server sending one endless line would fill the isolate's memory before a
 * single chunk reached the assembler's own limit (stream-assembler.ts MAX_RESPONSE_CHARS). The SDK
 * reads a body given as an async iterable as it reads a stream; a plain iterator over the body's
 * reader checks each piece for a fraction of what a TransformStream costs per request.
 */
function withLinesCapped(response: Response, seen: { done: boolean }, onActivity: (() => void) | undefined): Response {
  const body = response.body;
  if (!body) return response;
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let sinceNewline = 0;
  let tail = '';
  const pieces: AsyncIterableIterator<Uint8Array> = {
    async next() {
      const read = await reader.read();
      if (read.done) return { done: true, value: undefined };
      onActivity?.();
      const bytes = read.value;
      // The end of what came so far (a `[DONE]` can be split across two pieces), decoded apart from the SDK's own reading.
      tail = (tail + decoder.decode(bytes.subarray(Math.max(0, bytes.byteLength - DONE_WINDOW_BYTES)))).slice(-DONE_WINDOW_BYTES);
      seen.done = DONE_AT_END.test(tail);
      const last = bytes.lastIndexOf(0x0a);
      sinceNewline = last < 0 ? sinceNewline + bytes.byteLength : bytes.byteLength - last - 1;
      if (sinceNewline > MAX_BODY_BYTES) {
        await reader.cancel().catch(() => undefined);
        throw new ResponseTooLargeError(MAX_RESPONSE_CHARS);
      }
      return { done: false, value: bytes };
    },
    async return() {
      await reader.cancel().catch(() => undefined);
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  // What Stream.fromSSEResponse reads of a response: its body and headers.
  return { body: pieces, headers: response.headers, status: response.status } as unknown as Response;
}

export class ChatClient {
  readonly #url: string;
  readonly #headers: Record<string, string>;
  readonly #fetch: Fetch;

  constructor(options: ChatClientOptions) {
    const url = new URL(`${options.baseURL}/chat/completions`);
    for (const [name, value] of Object.entries(options.defaultQuery ?? {})) url.searchParams.set(name, value);
    this.#url = url.toString();
    this.#headers = {
      Accept: 'application/json',
      'Content-Type': 'application/json',
      'User-Agent': `OpenAI/JS ${VERSION}`,
      ...options.authHeaders,
    };
    this.#fetch = options.fetch ?? fetch;
  }

  /**
   * A streamed completion: the chunks as the SDK yields them (a stream cut by an abort ends silently);
   * a server that answered with one JSON completion instead gives the one chunk it adds up to.
   */
  async stream(body: ChatCompletionCreateParamsStreaming, options: CallOptions): Promise<ChatStream> {
    const { response, controller } = await this.#send(body, options);
    const seen = { done: false };
    let readAsEvents = false;
    const events = (sse: Response) => {
      readAsEvents = true;
      return Stream.fromSSEResponse<ChatCompletionChunk>(withLinesCapped(sse, seen, options.onActivity), controller, SILENT_SDK_CLIENT);
    };
    const chunks = isJsonResponse(response) ? wholeCompletionChunks(response, controller, events, options.onActivity) : events(response);
    return {
      async *[Symbol.asyncIterator]() {
        for await (const chunk of chunks) yield normalizeChatCompletionChunk(chunk);
      },
      // A JSON completion is whole once read (and always has a finish reason); events, relabelled or not, need their [DONE].
      get endedByServer() {
        return readAsEvents ? seen.done : true;
      },
    };
  }

  /** A completion in one body: parsed JSON when the server says JSON, else the text (which the caller rejects). */
  async create(body: ChatCompletionCreateParamsNonStreaming, options: CallOptions): Promise<ChatCompletion | string | undefined> {
    const startedAt = Date.now();
    const { response, controller } = await this.#send(body, options);
    const remaining = Math.max(0, startedAt + options.timeout - Date.now());
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, remaining);
    try {
      const text = await response.text();
      const mediaType = response.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
      if (!(mediaType?.includes('application/json') || mediaType?.endsWith('+json'))) return text;
      return text ? (JSON.parse(text) as ChatCompletion) : undefined;
    } catch (error) {
      if (options.signal.aborted && !timedOut) throw userAbort(options.signal);
      if (timedOut) throw new APIConnectionTimeoutError();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** One request, no retry: a refused status becomes the SDK's APIError subclass for it, a failed fetch a connection error. */
  async #send(body: object, { signal, timeout, onActivity }: CallOptions): Promise<{ response: Response; controller: AbortController }> {
    if (signal.aborted) throw userAbort(signal);
    // The caller's signal stays wired to the controller while the body streams, as in the SDK.
    const controller = new AbortController();
    const abort = () => controller.abort();
    signal.addEventListener('abort', abort, { once: true });
    const timer = setTimeout(abort, timeout);
    let response: Response;
    try {
      response = await this.#fetch.call(undefined, this.#url, {
        method: 'POST',
        headers: this.#headers,
        body: requestJson(body),
        signal: controller.signal,
        // A redirect could point the Worker at a private address (SSRF); a 3xx becomes an error instead.
        redirect: 'manual',
      });
    } catch (error) {
      signal.removeEventListener('abort', abort);
      if (signal.aborted) throw userAbort(signal);
      const cause = error instanceof Error ? error : new Error(String(error));
      if (isAbortError(cause) || /timed? ?out/i.test(String(cause) + ('cause' in cause ? String(cause.cause) : ''))) {
        throw Object.assign(new APIConnectionTimeoutError(), { cause });
      }
      throw new APIConnectionError({ cause });
    } finally {
      clearTimeout(timer);
    }
    onActivity?.();
    if (!response.ok) {
      signal.removeEventListener('abort', abort);
      const text = await response.text().catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
      const json = safeJSON(text);
      // As the SDK does: a body that is not `{error: …}` (vLLM's top-level message) is read as the error itself.
      const body = json && typeof json === 'object' && (json as { error?: unknown }).error == null ? { error: json } : json;
      throw APIError.generate(response.status, body as object | undefined, json ? undefined : text, response.headers);
    }
    return { response, controller };
  }
}
