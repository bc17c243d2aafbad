/**
 * Apply and cancel on the session (session.ts runs them one at a time and refuses other changes
 * while an apply waits or runs). Apply: the latest version, re-validated on today's baseline and
 * approved as the project requires, written to D1 in one batch (apply.ts); a failure changes
 * nothing and says so with a code. Cancel: D1 first, then the overlay is dropped.
 */
import { ApiError } from '../../../shared/api-error.ts';
import { ERROR_CODES } from '../../../shared/errors.ts';
import { logError } from '../../../shared/errors-report.ts';
import { userActor } from '../../../shared/ai/events.ts';
import type { SessionMeta, SessionStatus } from '../../../shared/ai/session.ts';
import type { ChangedFile } from '../../../shared/ai/overlay.ts';
import type { ChangeValidation } from '../../../shared/ai/validation-result.ts';
import { applyChanges, type ApplyOutcome } from './apply.ts';
import type { ProjectContext } from '../overlay/baseline.ts';
import type { CoEdit } from '../co-edit.ts';
import type { Actor, ApplyAnswer, ApplyRequest } from '../../../shared/ai/session-rpc.ts';
import { createDb } from '../../../worker/db/client.ts';
import { auditApplyFailed, mirrorVersion, recordCancel, wasMirrored } from './d1-records.ts';
import { changedFiles, type EffectiveView } from '../overlay/effective-view.ts';
import { requireEditor, staleOrMissing, turnInProgress, type SessionHost } from '../session-host.ts';
import { writeKv } from '../storage.ts';
import type { ChangeVersion } from '../overlay/versions.ts';

export class SessionApply {
  readonly #host: SessionHost;
  readonly #edits: CoEdit;

  constructor(host: SessionHost, edits: CoEdit) {
    this.#host = host;
    this.#edits = edits;
  }

  /** Apply the version the request names, once every check passed. */
  async apply(actor: Actor, request: ApplyRequest): Promise<ApplyAnswer> {
    const host = this.#host;
    const meta = host.requireActive();
    requireEditor(actor);
    const latest = await this.#applicableVersion(request);
    const { ctx, view } = await host.view();
    // Re-validate on the baseline as it is now: someone may have saved since the last validation.
    const files = changedFiles(view);
    const validation = await this.#revalidate(meta, ctx, view, files, latest);
    this.#checkApprovals(ctx, latest);
    const outcome = await this.#write(meta, actor, request, view, files, latest, validation);
    this.#settleApplied(actor, latest, files, outcome);
    return {
      applied: true,
      sessionStatus: 'active',
      changeSetId: latest.id,
      newRevision: outcome.newRevision,
      warnings: outcome.warnings,
      d1Bookmark: outcome.d1Bookmark,
    };
  }

  /** The latest version, when it is the one requested, with the content reviewed, and no turn runs. */
  async #applicableVersion(request: ApplyRequest): Promise<ChangeVersion> {
    const host = this.#host;
    const turn = host.turns.open();
    if (turn) throw turnInProgress(turn, 'apply', 'The AI is still working in this session; apply once it has finished (or stop it).');
    const latest = await this.#edits.flushEdits();
    if (!latest || latest.id !== request.changeSetId) staleOrMissing(host.versions, request.changeSetId, latest);
    if (latest.status === 'applied') throw new ApiError('AI_CHANGESET_ALREADY_APPLIED');
    if (request.contentHash !== undefined && request.contentHash !== latest.contentHash) {
      throw new ApiError('AI_CHANGESET_STALE', { message: 'The content you reviewed is not the content of this version.' });
    }
    if (host.overlay.size === 0 || latest.files.length === 0) throw new ApiError('AI_NO_STAGED_CHANGES');
    return latest;
  }

  async #revalidate(meta: SessionMeta, ctx: ProjectContext, view: EffectiveView, files: ChangedFile[], latest: ChangeVersion): Promise<ChangeValidation> {
    const host = this.#host;
    // Kept from a validate of this very content on this very baseline, else computed now.
    const validation = this.#edits.validationOf(ctx, view, latest, files);
    host.versions.setValidation(latest.version, validation);
    if (!validation.valid) {
      await mirrorVersion(host.db, meta, latest, validation);
      throw new ApiError('AI_VALIDATION_FAILED', {
        details: validation.errors.map((e) => ({ code: e.code, path: e.path, message: e.message, ...(e.hints[0] ? { hint: e.hints[0] } : {}) })),
        hints: ['Fix the reported problems (or ask the AI to), then apply the new version.'],
      });
    }
    return validation;
  }

  /** The review gate (review/review-service.ts): enough approvals from people who did not ask for or edit the change, or an owner's override, and no open request for changes. */
  #checkApprovals(ctx: ProjectContext, latest: ChangeVersion): void {
    const gate = this.#host.reviewer.gate(latest, ctx.requiredApprovals);
    if (gate.block) {
      throw new ApiError(gate.block.code, {
        message: gate.block.message,
        extra: { required: ctx.requiredApprovals, approvals: gate.counted, changeRequests: gate.requests.length },
      });
    }
  }

  /** The one D1 batch (apply.ts); a failure is audited, told to every socket, and answered with a code. */
  async #write(
    meta: SessionMeta,
    actor: Actor,
    request: ApplyRequest,
    view: EffectiveView,
    files: ChangedFile[],
    latest: ChangeVersion,
    validation: ChangeValidation,
  ): Promise<ApplyOutcome & { d1Bookmark: string | null }> {
    const host = this.#host;
    // The batch goes through a D1 session: its bookmark, at least as new as the write, goes back
    // to the Worker and on to the user, whose next read then sees the apply on any replica.
    const d1 = host.db.$client.withSession('first-primary');
    try {
      // Whatever the batch did, the kept baseline may now be behind D1 (or was, if a move went untold): see `finally`.
      const outcome = await applyChanges({
        db: createDb(d1 as unknown as D1Database),
        view,
        files,
        session: meta,
        actor,
        changeSetId: latest.id,
        version: latest.version,
        contentHash: latest.contentHash,
        // Its row holds the change set already when this isolate mirrored it: no second copy in the batch.
        changeSetJson: wasMirrored(latest.id) ? null : JSON.stringify(latest.changeSet ?? { files }),
        validationJson: JSON.stringify(validation),
        revisionBase: request.revisionBase,
      });
      return { ...outcome, d1Bookmark: d1.getBookmark() };
    } catch (error) {
      // Every socket, the HTTP body and the audit get a code and a plain message; the
      // error's own text (a failed query with its parameters) goes only, redacted, to the log.
      const cause =
        error instanceof ApiError ? { code: error.code, message: error.message } : { code: 'INTERNAL_ERROR' as const, message: ERROR_CODES.INTERNAL_ERROR.message };
      if (!(error instanceof ApiError)) logError('ai session: apply failed', error, { sessionId: meta.sessionId, version: latest.version });
      await auditApplyFailed(host.db, meta, actor.userId, latest, cause.code);
      host.emit({ type: 'apply.failed', actor: userActor(actor), payload: { version: latest.version, code: 'AI_APPLY_FAILED', message: cause.message } });
      throw new ApiError('AI_APPLY_FAILED', {
        extra: { cause: cause.message, causeCode: cause.code },
        hints:
          error instanceof ApiError && error.code === 'REVISION_CONFLICT'
            ? ['Someone saved while the changes were being applied. Apply again.']
            : ['Nothing was changed. Try again; if it keeps failing, tell an administrator.'],
        cause: error,
      });
    } finally {
      host.baselineMoved();
    }
  }

  /** Applied: the version marked, the overlay dropped, approvals revoked, everyone told. */
  #settleApplied(actor: Actor, latest: ChangeVersion, files: ChangedFile[], outcome: ApplyOutcome): void {
    const host = this.#host;
    host.versions.setStatus(latest.version, 'applied');
    this.#edits.resetOverlay();
    for (const revoked of host.review.revoke('applied')) {
      host.emit({ type: 'approval.revoked', actor: { kind: 'system' }, payload: { ...revoked, reason: 'applied' } });
    }
    host.emit({
      type: 'change.applied',
      actor: userActor(actor),
      payload: { version: latest.version, changeSetId: latest.id, newRevision: outcome.newRevision, warnings: outcome.warnings, files },
    });
  }

  /** Cancel: discard the overlay, mark the session cancelled; business tables are not touched. */
  async cancel(actor: Actor): Promise<{ status: SessionStatus }> {
    const host = this.#host;
    const meta = host.requireMeta();
    requireEditor(actor);
    if (host.status() === 'cancelled') return { status: 'cancelled' as const };
    // D1 first: if it fails, the session is still active with its overlay.
    await recordCancel(host.db, meta, actor.userId);
    this.#edits.resetOverlay();
    writeKv(host.sql, 'status', 'cancelled');
    host.emit({ type: 'session.cancelled', actor: userActor(actor), payload: {} });
    return { status: 'cancelled' as const };
  }
}
