/**
 * The loop of one AI turn (seed 004 §3), as a table of contents: set up (provider, offered tools,
 * the prompt composed once), then until the turn ends — finish tool calls a restart left
 * unanswered, check the budget and the step limit, request the model, run its tool calls, or
 * handle its final answer. Each step is a module beside this one. Audit rows wait in the object's
 * outbox and reach D1 at the turn's end or from the alarm, never between iterations: an iteration
 * with nothing changed sends no D1 query.
 */
import type { AssembledToolCall, AssistantMessage } from '../../../shared/llm/types.ts';
import type { EffectiveLlmProfile } from '../../../worker/llm/effective-profile.ts';
import { estimateTokens } from '../prompt/budget.ts';
import { handleFinalAnswer } from './answer-step.ts';
import type { AuditBuffer } from './audit-buffer.ts';
import { composePrompt } from './compose-prompt.ts';
import { TurnEnded, providerProfile, type ActiveTurn, type LoopContext, type TurnDeps } from './loop-context.ts';
import { checkCanCallModel, requestModel } from './model-call.ts';
import { offeredToolNames, offeredTools } from './offered-tools.ts';
import { UNREADABLE_RESPONSES_LIMIT, readToolCall, runToolCall, unreadableArgumentsEnding, unreadableResponsesInARow } from './tool-calls.ts';
import type { Ending } from './turn-endings.ts';
import type { TurnRecord } from './turn-store.ts';

export async function runLoop(deps: TurnDeps, active: ActiveTurn, profile: EffectiveLlmProfile, audit: AuditBuffer): Promise<Ending> {
  const ctx = await prepareLoop(deps, active, profile, audit);
  const { core } = deps;
  for (;;) {
    if (active.stoppedBy) return { kind: 'stopped', by: active.stoppedBy };
    const turn = core.turns.get(active.turnId)!;
    const loopMessages = core.turns.loopMessages(active.turnId);
    if (await finishUnansweredToolCalls(ctx, turn, loopMessages.at(-1))) continue;
    checkCanCallModel(ctx, turn);
    const response = await requestModel(ctx, turn, loopMessages);
    if (response.result.toolCalls.length > 0) {
      await runToolCalls(ctx, core.turns.get(active.turnId)!, response.message, response.result.toolCalls);
      continue;
    }
    const next = await handleFinalAnswer(ctx, turn, response.iteration, response.result);
    if (next !== 'again') return next;
  }
}

/** The provider, the tools on offer and the context budget; the prompt, composed on the turn's first run. */
async function prepareLoop(deps: TurnDeps, active: ActiveTurn, profile: EffectiveLlmProfile, audit: AuditBuffer): Promise<LoopContext> {
  const { core } = deps;
  let turn = core.turns.get(active.turnId)!;
  const provider = deps.createProvider(providerProfile(profile));
  const tools = offeredTools(turn.suggestOnly);
  const offered = new Set<string>(offeredToolNames(turn.suggestOnly));
  // The tool definitions travel with every request: their tokens come out of the context budget.
  const toolTokens = estimateTokens(JSON.stringify(tools));
  if (!turn.prefix) {
    await composePrompt(deps, turn, { profile, offered, toolTokens, audit });
    turn = core.turns.get(active.turnId)!;
  }
  const contextBudget = (turn.context?.budget.contextBudget ?? Number.MAX_SAFE_INTEGER) - toolTokens;
  return { deps, active, profile, audit, provider, tools, offered, contextBudget };
}

/** A checkpointed response whose tool calls were not all answered (a restart mid-tools): run the rest. */
async function finishUnansweredToolCalls(ctx: LoopContext, turn: TurnRecord, last: { role: string } | undefined): Promise<boolean> {
  if (last?.role !== 'assistant' || !(last as AssistantMessage).tool_calls?.length) return false;
  await runToolCalls(ctx, turn, last as AssistantMessage);
  return true;
}

/**
 * Each tool call of the response, in order, exactly once (tool-calls.ts); a stop ends the round.
 * Calls that could not be read, response after response, end the turn (tool-calls.ts).
 */
async function runToolCalls(ctx: LoopContext, turn: TurnRecord, message: AssistantMessage, assembled: AssembledToolCall[] = []): Promise<void> {
  for (const call of message.tool_calls ?? []) {
    if (call.type !== 'function') continue;
    const { name, args, refusal, notes } = readToolCall(call, assembled, ctx.offered);
    await runToolCall(ctx.deps, turn, { toolCallId: call.id, name, args, iteration: turn.iteration, refusal, notes }, ctx.audit);
    if (ctx.active.stoppedBy) return;
  }
  if (unreadableResponsesInARow(ctx.deps.core.turns.loopMessages(turn.id)) >= UNREADABLE_RESPONSES_LIMIT) throw new TurnEnded(unreadableArgumentsEnding());
}
