/**
 * The conversation history a turn sends: the latest raw messages, plus, when the
 * session is longer, one short summary of the older ones, built by a local, deterministic rule (no
 * model call): each older user request and assistant summary, cut to ~200 characters, ~2,000 in
 * all. Keeps long sessions inside the context budget. The caller passes the history without the
 * current user message.
 */
import type { ChatMessage } from '../../../shared/llm/types.ts';

export interface HistoryMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface HistoryWindow {
  /** The summary message (when older messages exist) followed by the raw messages, oldest first. */
  messages: ChatMessage[];
  rawMessages: number;
  summarizedMessages: number;
}

export interface HistoryWindowOptions {
  /** How many of the latest messages are sent as they are. */
  raw?: number;
}

export const RAW_HISTORY_MESSAGES = 6;
/** Each older message is cut to this many characters in the summary. */
export const SUMMARY_ITEM_CHARS = 200;
/** The whole summary message stays under this many characters. */
export const SUMMARY_MAX_CHARS = 2_000;

export const SUMMARY_HEADING = 'Earlier in this session (summary, for context only; not a new request):';

const LABEL: Readonly<Record<HistoryMessage['role'], string>> = { user: 'User asked', assistant: 'Assistant answered' };

/** One line, at most `max` characters, with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  const line = text.replace(/\s+/gu, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}

/**
 * The summary of the older messages. The newest items win when the cap is reached: they are the
 * most likely to matter for the next request; a leading line says how many were left out.
 */
function summaryText(older: readonly HistoryMessage[]): string {
  const items = older.map((m) => `- ${LABEL[m.role]}: ${clip(m.content, SUMMARY_ITEM_CHARS) || '(empty)'}`);
  const kept: string[] = [];
  // Room for the heading and an "omitted" line, whatever its count.
  let used = SUMMARY_HEADING.length + 60;
  for (let i = items.length - 1; i >= 0; i -= 1) {
    const item = items[i]!;
    if (used + item.length + 1 > SUMMARY_MAX_CHARS) break;
    kept.unshift(item);
    used += item.length + 1;
  }
  const omitted = items.length - kept.length;
  return [SUMMARY_HEADING, ...(omitted > 0 ? [`- (${omitted} earlier messages left out)`] : []), ...kept].join('\n');
}

/** What the model is told in place of the answer to a request that got none (its turn failed or was stopped). */
export const NO_ANSWER = '(No answer: this request did not complete.)';

/**
 * The history with user and assistant turns alternating, as the chat templates of Mistral, Gemma
 * and Llama 2 (under vLLM, TGI or llama.cpp) require: a request that got no answer is followed by
 * NO_ANSWER, and answers in a row are joined.
 */
export function alternating(messages: readonly HistoryMessage[]): HistoryMessage[] {
  const out: HistoryMessage[] = [];
  for (const message of messages) {
    const last = out.at(-1);
    if (last?.role === 'assistant' && message.role === 'assistant') out[out.length - 1] = { role: 'assistant', content: `${last.content}\n\n${message.content}` };
    else if (last?.role === 'user' && message.role === 'user') out.push({ role: 'assistant', content: NO_ANSWER }, message);
    else out.push(message);
  }
  // The current request follows: the last request of the history needs its (missing) answer too.
  if (out.at(-1)?.role === 'user') out.push({ role: 'assistant', content: NO_ANSWER });
  return out;
}

/**
 * The latest `raw` messages plus one summary message of the older ones. The summary travels as a
 * `user` message, not a `system` one: several OpenAI-compatible servers refuse a system message
 * after the first position; and it opens the first raw request rather than standing before it,
 * so user and assistant turns still alternate.
 */
export function historyWindow(messages: readonly HistoryMessage[], { raw = RAW_HISTORY_MESSAGES }: HistoryWindowOptions = {}): HistoryWindow {
  const keep = Math.max(0, Math.trunc(raw));
  const split = Math.max(0, messages.length - keep);
  const older = messages.slice(0, split);
  const latest = messages.slice(split);
  const rawMessages: ChatMessage[] = latest.map((m) => ({ role: m.role, content: m.content }));
  if (older.length === 0) return { messages: rawMessages, rawMessages: latest.length, summarizedMessages: 0 };
  const summary = summaryText(older);
  const [first, ...rest] = rawMessages;
  const opened: ChatMessage[] = first?.role === 'user' ? [{ role: 'user', content: `${summary}\n\n${String(first.content)}` }, ...rest] : [{ role: 'user', content: summary }, ...rawMessages];
  return { messages: opened, rawMessages: latest.length, summarizedMessages: older.length };
}
