// Token usage when the provider reports none (it refused or ignores stream_options.include_usage): an
// estimate at about four characters per token, marked as such, so budgets and audit still count it.

import type { ChatResult, StreamChatRequest, TokenUsage } from '../../shared/llm/types.ts';

/** Roughly four characters per token, the rule of thumb OpenAI documents for English text. */
const CHARS_PER_TOKEN = 4;

function tokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export function estimateUsage(result: ChatResult, request: Pick<StreamChatRequest, 'messages' | 'tools'>): TokenUsage {
  const promptTokens = tokens(JSON.stringify(request.messages) + (request.tools?.length ? JSON.stringify(request.tools) : ''));
  const produced = result.content + (result.reasoningContent ?? '') + result.toolCalls.map((c) => c.name + c.argumentsText).join('');
  const completionTokens = tokens(produced);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}

/** `result` as is when it carries usage, else with an estimate and `usageEstimated: true`. */
export function withEstimatedUsage(result: ChatResult, request: Pick<StreamChatRequest, 'messages' | 'tools'>): ChatResult {
  if (result.usage) return result;
  return { ...result, usage: estimateUsage(result, request), usageEstimated: true };
}
