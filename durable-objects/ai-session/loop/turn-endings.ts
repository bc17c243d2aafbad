/**
 * How a turn ends (turn-runner.ts): exactly one of finished, failed, stopped or paused, written
 * with the turn's status in one synchronous step, then its audit row. Finished turns add their
 * summary to the conversation (the only assistant text people see), and, when something is
 * staged, the list of what the system staged — never the model's account of it. A claim of
 * changes with nothing staged ends as failed with the "no changes staged" outcome.
 */
import { userActor, type NewEvent, type SessionEvent } from '../../../shared/ai/events.ts';
import type { ErrorCode } from '../../../shared/errors.ts';
import type { ChangeValidation } from '../../../shared/ai/validation-result.ts';
import type { Actor, SessionCore } from '../session.ts';
import type { AuditBuffer } from './audit-buffer.ts';
import type { TurnRecord } from './turn-store.ts';

export type Ending =
  | {
      kind: 'finished';
      responseType: 'chat' | 'change';
      summary: string;
      validation: (ChangeValidation & { changeSetId: string; version: number }) | null;
      needsManualFix: boolean;
    }
  | { kind: 'failed'; code: ErrorCode; message: string; hints: string[] }
  /** The model claimed changes but nothing was staged (loop/honest-ending.ts). */
  | { kind: 'no-changes'; reason: string }
  | { kind: 'stopped'; by: Actor }
  | { kind: 'paused'; tokenBudget: number };

export interface EndingDeps {
  core: SessionCore;
  emit: (event: NewEvent) => SessionEvent;
}

const ACTION_WORDS = { A: 'added', M: 'modified', D: 'deleted' } as const;

/** What the system staged, as the chat shows it beside the change set: "Staged: step:wf/a (modified), …". */
export function stagedText(files: ReadonlyArray<{ key: string; action: 'A' | 'M' | 'D' }>): string {
  if (files.length === 0) return 'Staged: no file differs from the project.';
  return `Staged ${files.length} file${files.length === 1 ? '' : 's'}: ${files.map((f) => `${f.key} (${ACTION_WORDS[f.action]})`).join(', ')}.`;
}

/** Close the turn: its status and its one ending event, written together; then the audit row. */
export function endTurn(deps: EndingDeps, turn: TurnRecord, ending: Ending, audit: AuditBuffer): void {
  const { core, emit } = deps;
  const current = core.turns.get(turn.id) ?? turn;
  const usage = current.usage;
  const sessionUsage = core.turns.sessionUsage();
  const latencyMs = Date.now() - current.startedAt;
  // turnUserId: whose message the turn answers, so usage per person (worker/store/ai-usage.ts) is
  // counted against them even when someone else stopped the turn.
  const common = { turnId: turn.id, turnUserId: current.userId, iterations: current.iteration, repairs: current.repairs, usage };
  switch (ending.kind) {
    case 'finished': {
      const validation = ending.validation;
      const latest = core.versions.latest();
      const staged = current.stagedVersion !== null && latest && latest.status !== 'applied' && core.overlay.size > 0 ? latest : null;
      const stagedFiles = staged ? staged.files.map((f) => ({ key: f.key, action: f.action })) : null;
      core.turns.update(turn.id, { status: 'finished', endedAt: Date.now(), outcome: { responseType: ending.responseType } });
      core.turns.addMessage({ role: 'assistant', content: ending.summary }, turn.id, 'summary');
      emit({
        type: 'turn.finished',
        actor: { kind: 'ai' },
        turnId: turn.id,
        payload: {
          responseType: ending.responseType,
          summary: ending.summary,
          changeSetId: staged?.id ?? null,
          version: staged?.version ?? null,
          valid: validation ? validation.valid : null,
          needsManualFix: ending.needsManualFix,
          staged: stagedFiles ? { files: stagedFiles, text: stagedText(stagedFiles) } : null,
          iterations: current.iteration,
          repairs: current.repairs,
          usage,
          sessionUsage,
        },
      });
      audit.add({
        type: 'ai.turn.finished',
        userId: current.userId,
        latencyMs,
        payload: { ...common, responseType: ending.responseType, changeSetId: staged?.id ?? null, valid: validation ? validation.valid : null },
      });
      return;
    }
    case 'failed': {
      core.turns.update(turn.id, { status: 'failed', endedAt: Date.now(), outcome: { code: ending.code } });
      // What the turn staged before it failed stays in the draft: say so, or people think nothing changed.
      const kept = current.stagedVersion !== null && ending.code !== 'AI_FINAL_CHANGE_NOT_STAGED'
        ? [`Version ${current.stagedVersion}, staged earlier in this turn, stays in the draft: review it, or discard it.`]
        : [];
      emit({
        type: 'turn.failed',
        actor: { kind: 'system' },
        turnId: turn.id,
        payload: { code: ending.code, message: ending.message, hints: [...ending.hints, ...kept], usage, sessionUsage },
      });
      audit.add({ type: 'ai.turn.failed', userId: current.userId, code: ending.code, latencyMs, payload: common });
      return;
    }
    case 'no-changes': {
      // A suggest-only turn has its own code, so that its words exist in every language (shared/i18n).
      const code: ErrorCode = current.suggestOnly ? 'AI_SUGGEST_ONLY_NO_CHANGES' : 'AI_NO_CHANGES_STAGED';
      const message = `No changes staged: the AI said it made changes, but ${ending.reason}.`;
      const hints = ['Nothing in the project or the working copy changed. Send your message again, or try another model.'];
      if (current.suggestOnly) hints.push('This turn was "Suggest only": send the message again without it to let the AI stage changes.');
      core.turns.update(turn.id, { status: 'failed', endedAt: Date.now(), outcome: { code } });
      emit({
        type: 'turn.failed',
        actor: { kind: 'system' },
        turnId: turn.id,
        payload: { code, message, hints, outcome: 'no_changes_staged', usage, sessionUsage },
      });
      audit.add({ type: 'ai.turn.failed', userId: current.userId, code, latencyMs, payload: common });
      return;
    }
    case 'stopped':
      core.turns.update(turn.id, { status: 'stopped', endedAt: Date.now(), outcome: { stoppedBy: ending.by.userId } });
      emit({
        type: 'turn.stopped',
        actor: userActor(ending.by),
        turnId: turn.id,
        payload: { stoppedBy: { userId: ending.by.userId, name: ending.by.name }, usage, sessionUsage },
      });
      audit.add({ type: 'ai.turn.stopped', userId: ending.by.userId, latencyMs, payload: { ...common, stoppedBy: ending.by.userId } });
      return;
    case 'paused':
      core.turns.update(turn.id, { status: 'paused' });
      emit({
        type: 'turn.paused',
        actor: { kind: 'system' },
        turnId: turn.id,
        payload: {
          code: 'AI_TOKEN_BUDGET_EXCEEDED',
          message: `This session has used ${sessionUsage.totalTokens} of its ${ending.tokenBudget} tokens, so the AI paused.`,
          tokenBudget: ending.tokenBudget,
          usage,
          sessionUsage,
        },
      });
      audit.add({ type: 'ai.turn.paused', userId: current.userId, code: 'AI_TOKEN_BUDGET_EXCEEDED', payload: { ...common, tokenBudget: ending.tokenBudget } });
      return;
    default: {
      const never: never = ending;
      throw new Error(`unknown ending ${String(never)}`);
    }
  }
}
