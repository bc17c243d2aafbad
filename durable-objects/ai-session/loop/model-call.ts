/**
 * One model request of the loop (turn-loop.ts): the messages fitted to the context budget, the
 * streamed text coalesced into `assistant.delta` events (without the reasoning a server left in the
 * content: shared/llm/thinking.ts; prose that may yet turn out to be reasoning is held back until the
 * response shows what it was), then the response checkpointed with its usage and cost before
 * anything acts on it. A stop or a provider failure ends the turn here. What goes back to the model
 * never holds an assistant message with neither text nor tool calls (vLLM's strict chat templates
 * and Mistral refuse one) nor the partial text of an answer a content filter stopped: a short
 * placeholder says what happened instead, so user and assistant turns still alternate.
 */
import type { AssistantMessage, ChatMessage, ChatResult } from '../../../shared/llm/types.ts';
import { estimateCostUsd } from '../../../shared/ai/pricing.ts';
import { MAX_LOOP_ITERATIONS, type Usage } from '../../../shared/ai/turn.ts';
import { fitToolMessages } from '../prompt/budget.ts';
import { ThinkingFilter } from '../../../shared/llm/thinking.ts';
import { DeltaCoalescer } from './delta-coalescer.ts';
import { TurnEnded, budgetReached, fail, type LoopContext } from './loop-context.ts';
import { storedAssistantMessage } from './tool-calls.ts';
import type { TurnRecord } from './turn-store.ts';

/** In place of an answer with no text and no tool calls. */
export const EMPTY_ANSWER = '(Empty answer: no text and no tool calls.)';
/** In place of the partial text of an answer the server's content filter stopped. */
export const FILTERED_ANSWER = "(Answer withheld: the server's content filter stopped it.)";

/** The response as it is kept and sent back: an empty or filtered answer becomes its placeholder. */
export function sendableResponse(message: AssistantMessage, finishReason: ChatResult['finishReason']): AssistantMessage {
  if (message.tool_calls?.length) return message;
  if (finishReason === 'content_filter') return { ...message, content: FILTERED_ANSWER };
  const text = typeof message.content === 'string' ? message.content : '';
  return text.trim() === '' ? { ...message, content: EMPTY_ANSWER } : message;
}

/** The same for messages kept before this rule (a checkpoint resumed after an update). */
function withoutEmptyAnswers(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.map((m) => (m.role === 'assistant' ? sendableResponse(m as AssistantMessage, null) : m));
}

export interface ModelResponse {
  iteration: number;
  /** The response as stored in the conversation. */
  message: AssistantMessage;
  result: ChatResult;
}

/** Pause at the token budget, fail at the step limit: checked before each model request. */
export function checkCanCallModel(ctx: LoopContext, turn: TurnRecord): void {
  const budget = budgetReached(ctx.deps.core);
  if (budget !== null) throw new TurnEnded({ kind: 'paused', tokenBudget: budget });
  if (turn.iteration >= MAX_LOOP_ITERATIONS) {
    fail('AI_TOOL_LOOP_LIMIT_EXCEEDED', `The AI used all ${MAX_LOOP_ITERATIONS} steps of a turn without finishing.`, [
      'Ask for a smaller change, or send your message again to continue from what is staged.',
    ]);
  }
}

/** Ask the model for its next step and checkpoint the answer. */
export async function requestModel(ctx: LoopContext, turn: TurnRecord, loopMessages: ChatMessage[]): Promise<ModelResponse> {
  const { deps, active } = ctx;
  const turnId = turn.id;
  const fitted = fitToolMessages(withoutEmptyAnswers([...turn.prefix!, ...loopMessages]), ctx.contextBudget);
  const iteration = turn.iteration + 1;
  deps.emit({ type: 'llm.requested', actor: { kind: 'ai' }, turnId, payload: { iteration, messages: fitted.messages.length, tools: ctx.tools.length } });
  const coalescer = new DeltaCoalescer((text) => deps.emit({ type: 'assistant.delta', actor: { kind: 'ai' }, turnId, payload: { iteration, text } }));
  const thinking = new ThinkingFilter();
  const startedAt = Date.now();
  const outcome = await ctx.provider.streamChat({
    messages: fitted.messages,
    tools: ctx.tools,
    signal: active.controller.signal,
    onTextDelta: (text) => coalescer.push(thinking.push(text).text),
  });
  // Held-back prose was the answer once the response completed; from a stopped or failed one it is dropped.
  if (outcome.type === 'completed') coalescer.push(thinking.end().text);
  coalescer.flush();
  if (outcome.type === 'aborted') {
    throw new TurnEnded({ kind: 'stopped', by: active.stoppedBy ?? { userId: turn.userId, name: turn.userName, role: turn.userRole } });
  }
  if (outcome.type === 'failed') fail(outcome.error.code, outcome.error.message, outcome.error.hints);
  const result = outcome.result;
  const usage = usageOf(ctx, result);
  const message = sendableResponse(storedAssistantMessage(result.assistantMessage), result.finishReason);
  deps.core.turns.recordResponse(turnId, iteration, message, usage);
  deps.emit({
    type: 'llm.completed',
    actor: { kind: 'ai' },
    turnId,
    payload: {
      iteration,
      finishReason: result.finishReason,
      toolCalls: result.toolCalls.length,
      usage,
      durationMs: Date.now() - startedAt,
      attempts: result.attempts,
      ...(result.usageEstimated ? { usageEstimated: true } : {}),
      ...(result.toolCallsFromText ? { toolCallsFromText: true } : {}),
    },
  });
  return { iteration, message, result };
}

function usageOf(ctx: LoopContext, result: ChatResult): Usage {
  const tokens = {
    promptTokens: result.usage?.promptTokens ?? 0,
    completionTokens: result.usage?.completionTokens ?? 0,
    totalTokens: result.usage?.totalTokens ?? 0,
  };
  // Priced by the model this turn asked for (the profile's), the id operators list prices under.
  return { ...tokens, calls: 1, estimatedCostUsd: estimateCostUsd(ctx.deps.prices(), ctx.profile.model, tokens) };
}
