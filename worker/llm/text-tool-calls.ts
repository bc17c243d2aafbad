// Tool calls written as text: servers without a tool parser (Ollama, vLLM, LM Studio) hand the model's
// `<tool_call>{"name":…,"arguments":…}</tool_call>` (Hermes/Qwen), `<function=name>{…}</function>`
// (Llama 3.1), a fenced JSON block, or a bare JSON object or array (after Mistral's `[TOOL_CALLS]` or
// Llama's `<|python_tag|>`) back as plain content. They become real tool calls only when tools were offered and every name
// is an offered tool; anything else stays text, so a final answer that happens to be JSON is never eaten.
// One that names an offered tool but cannot be read (cut off mid-call, or otherwise broken) becomes a call
// whose arguments are the broken text: the loop refuses it as arguments that are not JSON, asks again,
// and ends the turn naming the tool-call parser if it keeps happening — never a chat answer of raw markup.

import type { AssembledToolCall, ChatResult } from '../../shared/llm/types.ts';
import { withoutThinking } from '../../shared/llm/thinking.ts';
import { matchToolName } from '../../shared/ai/tool-names.ts';

export interface TextToolCall {
  /** The offered (wire) name the text named. */
  name: string;
  argumentsText: string;
}

export interface RecoveredToolCalls {
  calls: TextToolCall[];
  /** The content with the tool-call blocks removed, trimmed. */
  rest: string;
}

const TAGGED = /<tool_call>\s*([\s\S]*?)\s*(?:<\/tool_call>|$)/g;
const FENCED = /```(?:json|tool_call|tool)?[ \t]*\n([\s\S]*?)\n?```/g;
/** Llama 3.1's own format for custom tools: `<function=name>{"arg": …}</function>`. */
const FUNCTION_TAG = /<function=([A-Za-z0-9_.:\-/]+)>\s*([\s\S]*?)\s*(?:<\/function>|$)/g;
/**
 * Markers a chat template puts before calls it did not parse: Mistral's `[TOOL_CALLS]` and Llama's
 * `<|python_tag|>`; the JSON after them is the calls.
 */
const CALL_MARKERS = /^\s*(?:\[TOOL_CALLS\]|<\|python_tag\|>)\s*/;

/** `{name, arguments|parameters}` objects in `value` (one, or an array of them), or null if it is anything else. */
function callsIn(value: unknown): Array<{ name: string; args: unknown }> | null {
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0) return null;
  const calls: Array<{ name: string; args: unknown }> = [];
  for (const item of items) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return null;
    const record = item as Record<string, unknown>;
    // OpenAI's own shape written out: {"type":"function","function":{"name":…,"arguments":…}}.
    const inner = typeof record['function'] === 'object' && record['function'] !== null ? (record['function'] as Record<string, unknown>) : record;
    const name = inner['name'];
    // Llama 3.1 writes `parameters`, Hermes/Qwen `arguments`.
    const args = 'arguments' in inner ? inner['arguments'] : inner['parameters'];
    if (typeof name !== 'string' || args === undefined) return null;
    calls.push({ name, args });
  }
  return calls;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The offered (wire) name `name` means: the dotted name of the prompt and template variants included. */
function offeredName(name: string, offered: ReadonlySet<string>): string | null {
  if (offered.has(name)) return name;
  return matchToolName(name, [...offered]);
}

function argumentsText(args: unknown): string {
  if (typeof args === 'string') return args;
  return JSON.stringify(args ?? {});
}

/**
 * The tool calls written in `content`, or null when there are none to recover (no tools offered,
 * no block that parses as {name, arguments}, or a name that was not offered).
 */
export function recoverTextToolCalls(content: string, offeredNames: readonly string[]): RecoveredToolCalls | null {
  if (offeredNames.length === 0 || content.trim() === '') return null;
  const offered = new Set(offeredNames);
  // Reasoning a server left in the content (<think>…</think>) is neither a call nor kept as text:
  // a call it only thinks about must not run.
  const text = withoutThinking(content);
  const blocks: Array<{ start: number; end: number; json: string }> = [];
  for (const pattern of [TAGGED, FENCED]) {
    for (const match of text.matchAll(pattern)) {
      blocks.push({ start: match.index, end: match.index + match[0].length, json: match[1] ?? '' });
    }
    if (blocks.length > 0) break;
  }
  if (blocks.length === 0) {
    // `<function=name>{…}</function>`: written back as the `{name, arguments}` it stands for.
    for (const match of text.matchAll(FUNCTION_TAG)) {
      const args = parseJson(match[2] ?? '');
      if (args === undefined) return null;
      blocks.push({ start: match.index, end: match.index + match[0].length, json: JSON.stringify({ name: match[1], arguments: args }) });
    }
  }
  // A bare JSON object or array as the whole answer (Llama via Ollama without a parser), after a marker if any.
  if (blocks.length === 0) blocks.push({ start: 0, end: text.length, json: text.replace(CALL_MARKERS, '').trim() });

  const calls: TextToolCall[] = [];
  for (const block of blocks) {
    const found = callsIn(parseJson(block.json));
    if (found === null) return null;
    for (const call of found) {
      const name = offeredName(call.name, offered);
      if (name === null) return null;
      calls.push({ name, argumentsText: argumentsText(call.args) });
    }
  }
  let rest = '';
  let at = 0;
  for (const block of blocks) {
    rest += text.slice(at, block.start);
    at = block.end;
  }
  rest += text.slice(at);
  return { calls, rest: rest.trim() };
}

/** Where a call written as text starts: a tag, a JSON fence, or a marker, then the object (or list) of the call. */
const CALL_START = /(?:<tool_call>|```(?:json|tool_call|tool)?[ \t]*\n|\[TOOL_CALLS\]|<\|python_tag\|>)[ \t\n]*(?=\[?\s*\{)/;
/** The opening of a call object: its name first, as every template writes it. */
const CALL_OPENING = /^\[?\s*\{\s*"name"\s*:\s*"([^"\\]{1,100})"\s*(?:,\s*"(?:arguments|parameters)"\s*:\s*)?/;
/** The end of a tagged or fenced call, when it has one. */
const CALL_END = /\s*(?:<\/tool_call>|```)[\s\S]*$/;

/**
 * A tool call written as text that names an offered tool but does not parse (cut off mid-call,
 * broken JSON): a call of that tool whose arguments are the text as written after the name, so the
 * loop refuses it as unreadable arguments. Only for text that plainly opens a call — after a tag, a
 * fence or a marker, or as the whole answer — and null for anything else.
 */
export function unreadableTextToolCall(content: string, offeredNames: readonly string[]): RecoveredToolCalls | null {
  if (offeredNames.length === 0) return null;
  const text = withoutThinking(content);
  const offered = new Set(offeredNames);
  const tagged = /<function=([A-Za-z0-9_.:\-/]+)>/.exec(text);
  if (tagged) {
    const name = offeredName(tagged[1]!, offered);
    if (name === null) return null;
    const args = text.slice(tagged.index + tagged[0].length).replace(/\s*<\/function>[\s\S]*$/, '').trim();
    if (args.length === 0 || parseJson(args) !== undefined) return null;
    return { calls: [{ name, argumentsText: args }], rest: text.slice(0, tagged.index).trim() };
  }
  const start = CALL_START.exec(text);
  const bare = start ? null : /^\s*(?=\[?\s*\{)/.exec(text);
  const at = start ? start.index + start[0].length : bare ? bare[0].length : -1;
  if (at < 0) return null;
  const body = text.slice(at).replace(CALL_END, '');
  if (parseJson(body) !== undefined) return null;
  const opening = CALL_OPENING.exec(body);
  if (!opening) return null;
  const name = offeredName(opening[1]!, offered);
  if (name === null) return null;
  // The arguments as written; never empty (an empty text reads as `{}`), so the broken call never runs.
  const args = body.slice(opening[0].length).trim();
  return { calls: [{ name, argumentsText: args.length > 0 ? args : body.trim() }], rest: start ? text.slice(0, start.index).trim() : '' };
}

/**
 * The completed answer with tool calls recovered from its text, when it has no real ones and the
 * text holds calls of offered tools; otherwise `result` unchanged. The recovered calls count as
 * finished cleanly only when the answer was (not cut by `length` or a content filter).
 */
export function withTextToolCalls(result: ChatResult, offeredNames: readonly string[]): ChatResult {
  if (result.toolCalls.length > 0) return result;
  const readable = recoverTextToolCalls(result.content, offeredNames);
  const recovered = readable ?? unreadableTextToolCall(result.content, offeredNames);
  if (recovered === null) return result;
  // An unreadable call is read (and refused as not JSON) whatever ended the answer: counted as
  // unreadable, it ends the turn with the parser hint instead of being asked for again and again.
  const clean = readable === null || (result.finishReason !== 'length' && result.finishReason !== 'content_filter');
  const toolCalls: AssembledToolCall[] = recovered.calls.map((call, index) => ({
    index,
    id: `call_text_${index}`,
    name: call.name,
    argumentsText: call.argumentsText,
    finishedCleanly: clean,
  }));
  return {
    ...result,
    content: recovered.rest,
    toolCalls,
    toolCallsFromText: true,
    assistantMessage: {
      ...result.assistantMessage,
      content: recovered.rest.length > 0 ? recovered.rest : null,
      tool_calls: toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.argumentsText } })),
    },
  };
}
