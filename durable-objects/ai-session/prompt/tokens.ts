/**
 * Token estimates without a tokenizer, for the context budget (budget.ts). Deliberately on the high
 * side: an ASCII character is counted as 1/3.5 token (English prose runs near 4 characters per
 * token on GPT-style tokenizers, compact JSON near 3.5), every other character as a whole token
 * (CJK runs near 1 per character, often less), and a character outside the BMP (emoji) as 2. The
 * provider's reported usage remains the truth; this only decides what to trim before a call.
 */
import type { ChatMessage } from '../../../shared/llm/types.ts';

/** ASCII characters per token. */
export const ASCII_CHARS_PER_TOKEN = 3.5;
/** What the chat format adds around each message (role, separators), per OpenAI's cookbook. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code < 0x80) ascii += 1;
    else other += code > 0xffff ? 2 : 1;
  }
  return Math.ceil(ascii / ASCII_CHARS_PER_TOKEN) + other;
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

/** One message: its content, its reasoning, its tool calls (name and arguments) and the per-message overhead. */
export function estimateMessageTokens(message: ChatMessage): number {
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
