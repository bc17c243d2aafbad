/**
 * Reasoning a server leaves in a model's content: DeepSeek-R1 distills, QwQ and Qwen3 behind Ollama,
 * or vLLM started without a reasoning parser, answer `<think>…</think>` and then the answer. It is
 * never the answer: the final-answer reader and the recovery of tool calls written as text both
 * read what comes after it (an unclosed block is all reasoning).
 */
const THINKING = /^\s*<think>[\s\S]*?(?:<\/think>|$)\s*/u;

/** The content without the reasoning block it opens with (unchanged when it opens with none). */
export function withoutThinking(content: string): string {
  return content.replace(THINKING, '');
}
