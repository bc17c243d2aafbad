/**
 * Token estimates without a tokenizer, for the context budget (budget.ts). Deliberately on the high
 * side: an ASCII character is counted as 1/3.5 token (English prose runs near 4 characters per
 * token on GPT-style tokenizers, compact JSON near 3.5), every other character as a whole token
 * (CJK runs near 1 per character, often less), and a character outside the BMP (emoji) as 2. The
 * provider's reported usage remains the truth; this only decides what to trim before a call.
 */
import type { ChatMessage } from '../../../shared/llm/types.ts';
import { isAscii } from '../../../shared/text/ascii.ts';

/** ASCII characters per token. */
export const ASCII_CHARS_PER_TOKEN = 3.5;
/** What the chat format adds around each message (role, separators), per OpenAI's cookbook. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/**
 * Counted by UTF-16 code unit, which gives the same figures as counting by character: a character
 * outside the BMP is two code units (2 tokens), a lone surrogate one; and it runs several times
 * faster than iterating the string by character, over a prompt estimated on every request.
 */
export function estimateTokens(text: string): number {
  // Most prompts are all ASCII: the runtime's encoder says so natively (a JavaScript pass over every
  // character was the largest item of a turn's own CPU in workerd, 7 ms a turn).
  if (isAscii(text)) return Math.ceil(text.length / ASCII_CHARS_PER_TOKEN);
  let ascii = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) < 0x80) ascii += 1;
  return Math.ceil(ascii / ASCII_CHARS_PER_TOKEN) + (text.length - ascii);
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => {
      if (typeof part !== 'object' || part === null) return '';
      const text = (part as { text?: unknown; refusal?: unknown }).text ?? (part as { refusal?: unknown }).refusal;
      return typeof text === 'string' ? text : JSON.stringify(part);
    })
    .join('\n');
}

/** Estimates of frozen messages (the turn store keeps its messages frozen): a message is read once per turn. */
const frozenEstimates = new WeakMap<ChatMessage, number>();

/** One message: its content, its reasoning, its tool calls (name and arguments) and the per-message overhead. */
export function estimateMessageTokens(message: ChatMessage): number {
  if (!Object.isFrozen(message)) return estimate(message);
  let tokens = frozenEstimates.get(message);
  if (tokens === undefined) {
    tokens = estimate(message);
    frozenEstimates.set(message, tokens);
  }
  return tokens;
}

function estimate(message: ChatMessage): number {
  let tokens = MESSAGE_OVERHEAD_TOKENS + estimateTokens(contentText(message.content));
  // Some providers (DeepSeek) want their reasoning sent back with the assistant message.
  const reasoning = (message as { reasoning_content?: unknown }).reasoning_content;
  if (typeof reasoning === 'string') tokens += estimateTokens(reasoning);
  if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      const fn = 'function' in call ? call.function : undefined;
      tokens += MESSAGE_OVERHEAD_TOKENS + estimateTokens(`${fn?.name ?? ''}${fn?.arguments ?? ''}`);
    }
  }
  return tokens;
}

export function estimateMessagesTokens(messages: readonly ChatMessage[]): number {
  return messages.reduce((sum, m) => sum + estimateMessageTokens(m), 0);
}
