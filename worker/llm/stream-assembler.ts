// Assembles streamed chat.completion.chunk objects into one answer: text, reasoning, tool calls merged by
// index, finish reason, usage and provider extras (DeepSeek's reasoning_content must be sent back).
// Reasoning written into the content (`<think>…</think>`, or ending at a `</think>` with no opening
// tag: shared/llm/thinking.ts) is streamed as it came (the loop filters what viewers see) but is
// not the answer's text: the result's content and the message sent back hold only what follows it.

import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { AssembledToolCall, AssistantMessage, ChatResult, FinishReason, StreamChatRequest, TokenUsage } from '../../shared/llm/types.ts';
import { splitThinking } from '../../shared/llm/thinking.ts';

/** Delta fields of the OpenAI wire format; anything else is a provider extra. */
const STANDARD_DELTA_FIELDS: ReadonlySet<string> = new Set(['role', 'content', 'tool_calls', 'refusal', 'function_call', 'audio']);
/** DeepSeek streams `reasoning_content`; OpenRouter and some vLLM builds use `reasoning`. */
const REASONING_FIELDS = ['reasoning_content', 'reasoning'] as const;

/** A caller's callback threw: a bug on the caller's side, rethrown as is rather than blamed on the provider. */
export class CallbackError extends Error {
  override readonly name = 'CallbackError';
  constructor(cause: unknown) {
    super('A stream callback threw', { cause });
  }
}

/**
 * The most characters one answer may carry (text, reasoning, tool-call arguments and other text
 * fields together): twice the largest tool arguments a turn takes (tool-calls.ts), far past any
 * model's output limit. A server that streams on past it (a fault, or a hostile server) is cut off
 * there instead of filling the isolate's memory and the session's event log.
 */
export const MAX_RESPONSE_CHARS = 2 * 1024 * 1024;

/** The answer grew past MAX_RESPONSE_CHARS; nothing of the chunk that crossed it was taken. */
export class ResponseTooLargeError extends Error {
  override readonly name = 'ResponseTooLargeError';
  constructor(readonly limitChars: number) {
    super(`The answer grew past ${limitChars} characters`);
  }
}

/**
 * `content` as text and thinking. Most servers send a string; some (Mistral's reasoning models, a
 * few proxies) send a list of parts: `{type: "text", text}`, and `{type: "thinking", thinking}`
 * whose thinking is text or a list of text parts.
 */
export function contentParts(value: unknown): { text: string; thinking: string } {
  if (typeof value === 'string') return { text: value, thinking: '' };
  if (!Array.isArray(value)) return { text: '', thinking: '' };
  let text = '';
  let thinking = '';
  const textOf = (part: unknown): string =>
    typeof part === 'string' ? part : Array.isArray(part) ? part.map(textOf).join('') : typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : '';
  for (const part of value) {
    if (typeof part === 'string') text += part;
    else if (typeof part !== 'object' || part === null) continue;
    else if ((part as { type?: unknown }).type === 'thinking' || (part as { type?: unknown }).type === 'reasoning') {
      thinking += textOf((part as { thinking?: unknown }).thinking ?? (part as { reasoning?: unknown }).reasoning ?? (part as { text?: unknown }).text);
    } else text += textOf(part);
  }
  return { text, thinking };
}

/** Tool-call arguments as text: most servers stream a string; a few send the object itself. */
function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : '';
}

/** Characters of text a chunk's delta adds (its strings, content parts and tool-call fragments included). */
function deltaChars(delta: Record<string, unknown>): number {
  let chars = 0;
  for (const [key, value] of Object.entries(delta)) {
    if (typeof value === 'string') chars += value.length;
    else if (key === 'content') {
      const parts = contentParts(value);
      chars += parts.text.length + parts.thinking.length;
    } else if (key === 'tool_calls' && Array.isArray(value)) {
      for (const call of value as ToolCallChunk[]) chars += (call.function?.name?.length ?? 0) + argumentsText(call.function?.arguments).length + (call.id?.length ?? 0);
    } else if (!STANDARD_DELTA_FIELDS.has(key) && typeof value === 'object' && value !== null) {
      // A provider extra that is kept and merged (reasoning_details): counted as the JSON sent back.
      chars += JSON.stringify(value).length;
    }
  }
  return chars;
}

type Item = Record<string, unknown>;
const isItem = (value: unknown): value is Item => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * One streamed piece of a provider extra added to what came before. Text grows; a list grows, and
 * an item that continues an earlier one (OpenRouter's `reasoning_details`: the same `index` and
 * `type` in every chunk of one reasoning block) has its text fields appended to that item, so the
 * message sent back holds whole blocks, as the provider asks. Anything else is the newest value.
 */
function mergeExtra(previous: unknown, value: unknown): unknown {
  if (typeof value === 'string') return typeof previous === 'string' ? previous + value : value;
  if (!Array.isArray(value) || !Array.isArray(previous)) return value;
  const merged: unknown[] = previous.map((item) => (isItem(item) ? { ...item } : item));
  for (const item of value) {
    const earlier = isItem(item) && typeof item['index'] === 'number'
      ? merged.find((m): m is Item => isItem(m) && m['index'] === item['index'] && m['type'] === item['type'])
      : undefined;
    if (!earlier || !isItem(item)) {
      merged.push(item);
      continue;
    }
    for (const [key, piece] of Object.entries(item)) {
      earlier[key] = typeof piece === 'string' && typeof earlier[key] === 'string' && key !== 'type' && key !== 'format' && key !== 'id' ? earlier[key] + piece : piece;
    }
  }
  return merged;
}

/**
 * A function name as far as it has streamed. Most servers send it whole in a call's first delta;
 * Gemini's OpenAI-compatible endpoint sends it in pieces ("builder_", "step_read"), which add up;
 * some servers repeat the whole name on every delta, and a piece equal to the name so far is such a
 * repeat, not more of it. A piece that starts with the name so far is the name so far, sent again longer.
 */
export function mergeName(soFar: string, piece: string): string {
  if (soFar === '' || piece.startsWith(soFar)) return piece;
  return soFar + piece;
}

type Callbacks = Pick<StreamChatRequest, 'onTextDelta' | 'onReasoningDelta' | 'onToolCallDelta'>;

interface PartialCall {
  index: number;
  id: string;
  name: string;
  argumentsText: string;
}

interface ToolCallChunk {
  index?: number;
  id?: string | null;
  /** `arguments` is text on the wire; a few servers send the object itself. */
  function?: { name?: string | null; arguments?: unknown } | null;
}

function call<T>(fn: ((value: T) => void) | undefined, value: T): void {
  if (!fn) return;
  try {
    fn(value);
  } catch (error) {
    throw new CallbackError(error);
  }
}

export class StreamAssembler {
  readonly #callbacks: Callbacks;
  #content = '';
  #reasoning = '';
  #refusal = '';
  readonly #calls = new Map<number, PartialCall>();
  #lastIndex: number | undefined;
  #finishReason: FinishReason | null = null;
  #usage: TokenUsage | undefined;
  #model: string | undefined;
  readonly #extras: Record<string, unknown> = {};
  #chunks = 0;
  #chars = 0;
  readonly #maxChars: number;

  constructor(callbacks: Callbacks = {}, maxChars = MAX_RESPONSE_CHARS) {
    this.#callbacks = callbacks;
    this.#maxChars = maxChars;
  }

  get chunkCount(): number {
    return this.#chunks;
  }

  get finishReason(): FinishReason | null {
    return this.#finishReason;
  }

  /**
   * For a stream the server closed normally without ever giving a finish reason: `tool_calls` when
   * it streamed calls, else `stop`.
   */
  inferFinishReason(): void {
    this.#finishReason ??= this.#calls.size > 0 ? 'tool_calls' : 'stop';
  }

  push(chunk: ChatCompletionChunk): void {
    this.#chunks += 1;
    if (typeof chunk.model === 'string' && chunk.model) this.#model = chunk.model;
    if (chunk.usage) {
      this.#usage = {
        promptTokens: chunk.usage.prompt_tokens ?? 0,
        completionTokens: chunk.usage.completion_tokens ?? 0,
        totalTokens: chunk.usage.total_tokens ?? 0,
      };
    }
    const choice = (chunk.choices ?? []).find((c) => (c.index ?? 0) === 0);
    if (!choice) return;
    const delta = (choice.delta ?? {}) as Record<string, unknown>;
    this.#chars += deltaChars(delta);
    if (this.#chars > this.#maxChars) throw new ResponseTooLargeError(this.#maxChars);

    for (const [key, value] of Object.entries(delta)) {
      if (STANDARD_DELTA_FIELDS.has(key) || value === null || value === undefined) continue;
      this.#extras[key] = mergeExtra(this.#extras[key], value);
    }
    for (const field of REASONING_FIELDS) {
      const text = delta[field];
      if (typeof text === 'string' && text) {
        this.#reasoning += text;
        call(this.#callbacks.onReasoningDelta, text);
      }
    }
    // OpenAI's models say why they decline in `refusal`, with no content.
    if (typeof delta['refusal'] === 'string') this.#refusal += delta['refusal'];
    const { text, thinking } = contentParts(delta['content']);
    if (thinking) {
      this.#reasoning += thinking;
      call(this.#callbacks.onReasoningDelta, thinking);
    }
    if (text) {
      this.#content += text;
      call(this.#callbacks.onTextDelta, text);
    }
    const toolCalls = delta['tool_calls'];
    if (Array.isArray(toolCalls)) for (const toolCall of toolCalls as ToolCallChunk[]) this.#mergeToolCall(toolCall);

    if (choice.finish_reason) this.#finishReason = choice.finish_reason;
  }

  #mergeToolCall(delta: ToolCallChunk): void {
    let index = delta.index;
    if (typeof index !== 'number') {
      // Some providers omit the index: a new id starts a new call, anything else continues the last one.
      const isNew = typeof delta.id === 'string' && delta.id !== '' && ![...this.#calls.values()].some((c) => c.id === delta.id);
      index = isNew || this.#lastIndex === undefined ? this.#calls.size : this.#lastIndex;
    }
    // Some servers give every call of a response the same index: a different id with a name at a
    // taken index is a new call, not more of the old one.
    const taken = this.#calls.get(index);
    if (taken?.id && taken.name && typeof delta.id === 'string' && delta.id && delta.id !== taken.id && delta.function?.name) {
      index = Math.max(...this.#calls.keys()) + 1;
    }
    this.#lastIndex = index;
    let current = this.#calls.get(index);
    if (!current) {
      current = { index, id: '', name: '', argumentsText: '' };
      this.#calls.set(index, current);
    }
    if (typeof delta.id === 'string' && delta.id && !current.id) current.id = delta.id;
    const name = delta.function?.name;
    if (typeof name === 'string' && name) current.name = mergeName(current.name, name);
    const argumentsDelta = argumentsText(delta.function?.arguments);
    current.argumentsText += argumentsDelta;
    call(this.#callbacks.onToolCallDelta, { index, id: current.id, name: current.name, argumentsDelta });
  }

  /**
   * The answer so far. `streamCompleted` says the stream ended normally with a finish reason; without
   * it no tool call counts as finished cleanly.
   */
  result(streamCompleted: boolean, attempts: number): ChatResult {
    const cleanFinish = streamCompleted && this.#finishReason !== 'length' && this.#finishReason !== 'content_filter';
    // Every call needs its own id: the tool results are matched to calls by it, and a repeated id
    // would run the second call with the first one's arguments (or not at all).
    const used = new Set<string>();
    const toolCalls: AssembledToolCall[] = [...this.#calls.values()]
      .sort((a, b) => a.index - b.index)
      .map((c) => {
        let id = c.id || `call_missing_id_${c.index}`;
        if (used.has(id)) id = `${id}_${c.index}`;
        for (let n = 2; used.has(id); n++) id = `${c.id || 'call'}_${c.index}_${n}`;
        used.add(id);
        return { index: c.index, id, name: c.name, argumentsText: c.argumentsText, finishedCleanly: cleanFinish && c.name !== '' };
      });
    const providerExtras = { ...this.#extras };
    const written = splitThinking(this.#content);
    const content = written.text;
    const reasoning = this.#reasoning + written.thinking;
    const assistantMessage: AssistantMessage = {
      ...providerExtras,
      role: 'assistant',
      content: content.length > 0 ? content : null,
      ...(toolCalls.length > 0
        ? {
            tool_calls: toolCalls.map((c) => ({
              id: c.id,
              type: 'function' as const,
              function: { name: c.name, arguments: c.argumentsText },
            })),
          }
        : {}),
    };
    return {
      content,
      ...(reasoning ? { reasoningContent: reasoning } : {}),
      ...(this.#refusal ? { refusal: this.#refusal } : {}),
      toolCalls,
      finishReason: this.#finishReason,
      ...(this.#usage ? { usage: this.#usage } : {}),
      ...(this.#model ? { model: this.#model } : {}),
      providerExtras,
      assistantMessage,
      attempts,
    };
  }
}
