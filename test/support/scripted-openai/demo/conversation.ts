// What the demo model reads from one chat request: the current user turn, the tool calls it made in
// that turn with their results (windowed reads joined), the intent of the message and its language.

import type { ChatMessage } from '../types.ts';

/** The loop's corrective messages are role=user too; they never start a new turn. */
export const REPAIR_PREFIX = 'REPAIR_REQUEST:';

export type Intent = 'undo' | 'shorter' | 'edit';
export type Lang = 'en' | 'zh';

export interface ToolResult {
  /** Wire name, e.g. builder_step_read. */
  name: string;
  args: Record<string, unknown>;
  /** The parsed `{ok, data, error, meta}` envelope; undefined when the content was not JSON (e.g. trimmed). */
  envelope: { ok: boolean; data: unknown; error: { code?: string; message?: string; details?: unknown[] } | null } | undefined;
}

export interface Turn {
  /** The user's message that started this turn. */
  request: string;
  /** Tool calls of this turn with their results, in order. */
  results: ToolResult[];
  /** Corrective requests the loop sent in this turn (text after the prefix). */
  repairs: string[];
}

export function textOf(message: ChatMessage | undefined): string {
  const content = message?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: unknown) => (typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : '')).join('');
}

function parseObject(text: string | null | undefined): Record<string, unknown> {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The current turn: everything after the last user message that is not a repair request. Earlier
 * turns (the history: user messages and summaries) are not this turn's work, so a second message
 * in a session starts from scratch instead of counting the first turn's answers.
 */
export function currentTurn(messages: readonly ChatMessage[]): Turn {
  let start = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'user' && !textOf(m).startsWith(REPAIR_PREFIX)) {
      start = i;
      break;
    }
  }
  const own = messages.slice(start + 1);
  const calls = new Map<string, { name: string; args: Record<string, unknown> }>();
  const results: ToolResult[] = [];
  const repairs: string[] = [];
  for (const m of own) {
    if (m.role === 'assistant') {
      for (const call of m.tool_calls ?? []) {
        if (call.id && call.function?.name) calls.set(call.id, { name: call.function.name, args: parseObject(call.function.arguments) });
      }
    } else if (m.role === 'tool') {
      const call = calls.get(m.tool_call_id ?? '');
      if (!call) continue;
      const parsed = parseObject(textOf(m));
      const envelope = typeof parsed.ok === 'boolean' ? (parsed as unknown as ToolResult['envelope']) : undefined;
      results.push({ ...call, envelope });
    } else if (m.role === 'user') {
      repairs.push(textOf(m).slice(REPAIR_PREFIX.length).trim());
    }
  }
  return { request: start >= 0 ? textOf(messages[start]) : '', results, repairs };
}

const UNDO = /\b(undo|revert|discard|roll\s*back|throw (it|that) away)\b|撤销|撤回|还原|回滚|不要了/iu;
const SHORTER = /\b(short|shorter|shorten|concise|brief|briefer|trim|tighter|condense)\b|精简|简短|短一些|短一点|缩短|简洁/iu;

export function intentOf(request: string): Intent {
  if (UNDO.test(request)) return 'undo';
  if (SHORTER.test(request)) return 'shorter';
  return 'edit';
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;
const LATIN_WORD = /[A-Za-z]{2,}/gu;

/**
 * Chinese when CJK characters are at least as many as Latin words: a CJK character carries about a
 * word, and the ids, keys and headings every package has in English do not outvote its prose.
 */
export function languageOf(texts: readonly string[]): Lang {
  // Ids and paths (no spaces) are English in every package; only prose counts.
  const text = texts.filter((t) => /\s/u.test(t.trim()) || /[^\x00-\x7f]/u.test(t)).join('\n');
  const words = text.match(LATIN_WORD)?.length ?? 0;
  const cjk = text.match(CJK)?.length ?? 0;
  return cjk > 0 && cjk >= words ? 'zh' : 'en';
}

/** Every string inside a JSON value (for the language guess). */
export function stringsIn(value: unknown, depth = 0): string[] {
  if (typeof value === 'string') return [value];
  if (depth > 8 || typeof value !== 'object' || value === null) return [];
  return Object.values(value).flatMap((child) => stringsIn(child, depth + 1));
}

const CONTENT_LANGUAGE = /^- Content language of this project: (en|zh)\./mu;

/**
 * The content language the system prompt names (durable-objects/ai-session/prompt/language.ts), as
 * a model reads its instructions; null when the prompt names none (an older prompt, a bare request).
 */
export function instructedLanguage(messages: readonly ChatMessage[]): Lang | null {
  const system = messages.find((m) => m.role === 'system');
  const match = system ? CONTENT_LANGUAGE.exec(textOf(system)) : null;
  return match ? (match[1] as Lang) : null;
}
