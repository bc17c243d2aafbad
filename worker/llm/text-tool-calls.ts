// Tool calls written as text: servers without a tool parser (Ollama, vLLM, LM Studio) hand the model's
// `<tool_call>{"name":…,"arguments":…}</tool_call>` (Hermes/Qwen), `<function=name>{…}</function>`
// (Llama 3.1), a fenced JSON block, or a bare JSON object or array (after Mistral's `[TOOL_CALLS]` or
// Llama's `<|python_tag|>`) back as plain content. They become real tool calls only when tools were offered and every name
// is an offered tool; anything else stays text, so a final answer that happens to be JSON is never eaten.

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

/**
 * The completed answer with tool calls recovered from its text, when it has no real ones and the
 * text holds calls of offered tools; otherwise `result` unchanged. The recovered calls count as
 * finished cleanly only when the answer was (not cut by `length` or a content filter).
 */
export function withTextToolCalls(result: ChatResult, offeredNames: readonly string[]): ChatResult {
  if (result.toolCalls.length > 0) return result;
  const recovered = recoverTextToolCalls(result.content, offeredNames);
  if (recovered === null) return result;
  const clean = result.finishReason !== 'length' && result.finishReason !== 'content_filter';
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
