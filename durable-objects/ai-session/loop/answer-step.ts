/**
 * The loop's last step (turn-loop.ts): the model answered without tool calls. Its final answer is
 * read (one corrective request when it cannot be used), a changeSet in it is staged, a claim of
 * changes with nothing staged is sent back, and staged changes are validated — each problem a
 * repair request while repairs remain. Answers the turn's ending, or 'again' for another request.
 */
import type { ChatResult } from '../../../shared/llm/types.ts';
import { MAX_REPAIRS } from '../../../shared/ai/turn.ts';
import type { ChangeValidation } from '../../../shared/ai/validation-result.ts';
import type { ToolError } from '../../../shared/ai/tool-envelope.ts';
import type { FinalAnswer } from '../../../shared/ai/turn.ts';
import { parseFinalAnswer } from './final-answer.ts';
import { NOTHING_STAGED_TITLE, alreadyAsked, finalChangeNotStaged, nothingStaged, notAppliedSummary } from './honest-ending.ts';
import { markAddressedThreads } from '../review/address-comments.ts';
import { fail, repairRequest, type LoopContext, type TurnDeps } from './loop-context.ts';
import { runToolCall } from './tool-calls.ts';
import type { Ending } from './turn-endings.ts';
import type { TurnRecord } from './turn-store.ts';

/** One corrective request when the final answer cannot be used, then AI_BAD_RESPONSE. */
const MAX_FORMAT_RETRIES = 1;

type Validated = ChangeValidation & { changeSetId: string; version: number };

/** `turn` is the record as it was before this response (its format retries, its mode). */
export async function handleFinalAnswer(ctx: LoopContext, turn: TurnRecord, iteration: number, result: ChatResult): Promise<Ending | 'again'> {
  const { core } = ctx.deps;
  // The model declined (OpenAI's `refusal`, no content): its reason is its answer, not an empty one to retry.
  const content = result.refusal?.trim() && !result.content.trim() ? JSON.stringify({ responseType: 'chat', assistantSummary: result.refusal.trim() }) : result.content;
  const parsed = parseFinalAnswer(content, result.finishReason);
  if (!parsed.ok) return retryFormat(ctx.deps, turn, parsed.problem);
  const answer = parsed.answer;
  const answerError = await stageAnswerChangeSet(ctx, turn, iteration, answer);
  if (answerError === 'again') return 'again';
  const current = core.turns.get(turn.id)!;
  // The answer's own changeSet failed, its repairs spent, over a version staged earlier: the draft
  // is not what the answer describes, so its summary is not shown as the outcome (honest-ending.ts).
  if (answerError && current.stagedVersion !== null && !current.suggestOnly) return finalChangeNotStaged(answerError, current.stagedVersion);
  // A claim of changes with nothing staged is never a success (honest-ending.ts); one made only in
  // words is sent back once.
  const loopMessages = core.turns.loopMessages(turn.id);
  const latestApplied = core.versions.latest()?.status === 'applied';
  const unstaged = nothingStaged(current, answer, answerError, loopMessages, core.meta!, parsed.said, latestApplied);
  if (unstaged) {
    const ask = !(unstaged.inWords && alreadyAsked(loopMessages));
    if (ask && repairOrGiveUp(ctx.deps, turn.id, NOTHING_STAGED_TITLE, unstaged.repairLines, 1)) return 'again';
    return { kind: 'no-changes', reason: unstaged.reason };
  }
  const checked = await validateStaged(ctx, current);
  if (checked === 'again') return 'again';
  const responseType = current.suggestOnly ? 'chat' : current.stagedVersion !== null ? 'change' : answer.responseType;
  // "Address the open comments": the threads the answer names show "addressed in version N" (still open).
  if (!current.suggestOnly) markAddressedThreads(core, turn.id, answer.addressedThreads);
  // Staged, not applied: words saying it was applied or is live get a correction (honest-ending.ts).
  const staged = current.stagedVersion !== null && !current.suggestOnly && core.versions.latest()?.status !== 'applied';
  const summary = (staged && notAppliedSummary(answer.assistantSummary, parsed.said)) || answer.assistantSummary;
  return { kind: 'finished', responseType, summary, validation: checked.validation, needsManualFix: checked.needsManualFix };
}

/** An unusable answer: one corrective request, then the turn fails. */
function retryFormat(deps: TurnDeps, turn: TurnRecord, problem: string): 'again' {
  if (turn.formatRetries >= MAX_FORMAT_RETRIES) fail('AI_BAD_RESPONSE', problem, ['Send your message again; if it keeps happening, try another model.']);
  deps.core.turns.update(turn.id, { formatRetries: turn.formatRetries + 1 });
  deps.core.turns.addMessage(
    repairRequest('your last answer could not be used', [
      `- problem: ${problem}`,
      '- End the turn with one JSON object: {"responseType": "chat" | "change", "assistantSummary": "<summary for the chat>"}.',
    ]),
    turn.id,
    'repair',
  );
  return 'again';
}

/** A changeSet carried in the answer is staged like a tool call; its error, a repair, or null. */
async function stageAnswerChangeSet(ctx: LoopContext, turn: TurnRecord, iteration: number, answer: FinalAnswer): Promise<ToolError | null | 'again'> {
  if (answer.changeSet === undefined || turn.suggestOnly) return null;
  const { deps } = ctx;
  const staged = await runToolCall(
    deps,
    deps.core.turns.get(turn.id)!,
    { toolCallId: `final-${iteration}`, name: 'builder.change.stage', args: { changeSet: answer.changeSet }, iteration, refusal: null, fromAnswer: true },
    ctx.audit,
  );
  if (staged.ok) return null;
  const errorCount = Math.max(1, staged.error.details?.length ?? 1);
  if (repairOrGiveUp(deps, turn.id, 'the changeSet in your answer could not be staged', [`- error: ${JSON.stringify(staged.error)}`], errorCount)) return 'again';
  return staged.error;
}

/** Validate what the turn staged; failures go back as a repair, then end as "needs a manual fix". */
async function validateStaged(ctx: LoopContext, turn: TurnRecord): Promise<{ validation: Validated | null; needsManualFix: boolean } | 'again'> {
  const { deps, audit } = ctx;
  const { core } = deps;
  if (turn.stagedVersion === null || turn.suggestOnly || core.overlay.size === 0) return { validation: null, needsManualFix: false };
  const latest = core.versions.latest();
  if (latest) deps.emit({ type: 'turn.validating', actor: { kind: 'system' }, turnId: turn.id, payload: { version: latest.version, changeSetId: latest.id } });
  const validation = await core.validate(undefined);
  if (validation.valid) return { validation, needsManualFix: false };
  audit.add({
    type: 'ai.validation.failed',
    userId: turn.userId,
    code: 'AI_VALIDATION_FAILED',
    payload: { turnId: turn.id, version: validation.version, errorCount: validation.errors.length, codes: [...new Set(validation.errors.map((e) => e.code))] },
  });
  const errors = validation.errors.slice(0, 20).map((e) => ({ code: e.code, path: e.path, message: e.message, hints: e.hints }));
  const lines = [`- errors: ${JSON.stringify(errors)}`, '- Fix them with builder.change.stage, then answer again.'];
  if (repairOrGiveUp(deps, turn.id, 'the staged changes do not pass validation', lines, validation.errors.length)) return 'again';
  return { validation, needsManualFix: true };
}

/** Ask the model for a repair (true), or report that the repairs are used up (false). */
export function repairOrGiveUp(deps: TurnDeps, turnId: string, title: string, lines: string[], errorCount: number): boolean {
  const { core } = deps;
  const turn = core.turns.get(turnId)!;
  if (turn.repairs >= MAX_REPAIRS) return false;
  const attempt = turn.repairs + 1;
  core.turns.update(turnId, { repairs: attempt });
  core.turns.addMessage(repairRequest(title, [`- attempt: ${attempt} of ${MAX_REPAIRS}`, ...lines]), turnId, 'repair');
  deps.emit({ type: 'turn.repairing', actor: { kind: 'system' }, turnId, payload: { attempt, maxRepairs: MAX_REPAIRS, errorCount } });
  return true;
}
