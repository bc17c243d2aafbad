/**
 * The change tools' commands on the session (session.ts runs them one at a time):
 * `builder.change.stage` (parse, check against the effective view, write the overlay, record a
 * version), `builder.change.validate` (the shared pipeline over the latest version) and
 * `builder.change.discard` (drop the overlay; the latest version becomes `rejected`).
 */
import { ApiError } from '../../shared/api-error.ts';
import { operationKeys, parseChangeSet } from '../../shared/ai/change-set.ts';
import { declaredImpactNotes } from '../../shared/ai/change-impact.ts';
import type { ChangeValidation } from '../../shared/ai/validation-result.ts';
import type { EventActor } from '../../shared/ai/events.ts';
import type { CoEdit } from './co-edit.ts';
import type { StageResult } from '../../shared/ai/session-rpc.ts';
import { mirrorVersion } from './apply/d1-records.ts';
import { createEffectiveView } from './overlay/effective-view.ts';
import { staleOrMissing, type SessionHost } from './session-host.ts';
import { impactOf } from './session-views.ts';
import { contractError, stagedWrites } from './overlay/staging.ts';
import { keepBaseTexts } from './overlay/base-texts.ts';
import type { VersionSource } from './overlay/versions.ts';

export class ChangeCommands {
  readonly #host: SessionHost;
  readonly #edits: CoEdit;

  constructor(host: SessionHost, edits: CoEdit) {
    this.#host = host;
    this.#edits = edits;
  }

  async stage(input: unknown, actor: { userId: string; name: string }, source: VersionSource): Promise<StageResult> {
    const host = this.#host;
    const meta = host.requireActive();
    if (host.applying()) throw new ApiError('AI_SESSION_BUSY');
    const parsed = parseChangeSet(input, { targetType: meta.targetType, mode: meta.mode });
    if (!parsed.ok) throw contractError(parsed.errors);
    const ctx = await host.context();
    const writes = await stagedWrites(parsed.changeSet, createEffectiveView(ctx.baseline, host.overlay.entries()), ctx.baseline);
    // The base of a later rebase's merge: the baseline text each new entry is staged on.
    keepBaseTexts(host.sql, ctx.baseline, writes, (key) => host.overlay.entry(key));
    host.overlay.stage(writes, source === 'ai' ? 'ai' : 'api');
    // A person who stages by hand authored this draft (the AI's requester is counted by their message).
    if (source !== 'ai') host.requests.addDraftAuthor(actor.userId);
    const view = createEffectiveView(ctx.baseline, host.overlay.entries());
    const version = await this.#edits.recordVersion(view, source, actor, parsed.changeSet);
    return {
      changeSetId: version.id,
      version: version.version,
      contentHash: version.contentHash,
      status: 'staged',
      files: version.files,
      warnings: parsed.warnings,
      // The declared impact is compared, never trusted: a disagreement is a note, not a refusal.
      notes: declaredImpactNotes(parsed.changeSet.impact, parsed.changeSet.operations.flatMap(operationKeys)),
      impact: impactOf(meta, view),
    };
  }

  async validate(changeSetId: string | undefined): Promise<ChangeValidation & { changeSetId: string; version: number }> {
    const host = this.#host;
    host.requireActive();
    const latest = await this.#edits.flushEdits();
    if (!latest || latest.files.length === 0 || host.overlay.size === 0) throw new ApiError('AI_NO_STAGED_CHANGES');
    if (changeSetId !== undefined && changeSetId !== latest.id) staleOrMissing(host.versions, changeSetId, latest);
    const { ctx, view } = await host.view();
    const validation = this.#edits.validateVersion(ctx, view, latest);
    await mirrorVersion(host.db, host.requireMeta(), latest, validation);
    return { ...validation, changeSetId: latest.id, version: latest.version };
  }

  async discard(actor: EventActor): Promise<{ discarded: true }> {
    const host = this.#host;
    host.requireActive();
    if (host.applying()) throw new ApiError('AI_SESSION_BUSY');
    const latest = host.versions.latest();
    this.#edits.resetOverlay();
    if (latest && latest.status !== 'applied') {
      host.versions.setStatus(latest.version, 'rejected');
      await mirrorVersion(host.db, host.requireMeta(), latest, latest.validation, true);
    }
    for (const revoked of host.review.revoke('discarded')) {
      host.emit({ type: 'approval.revoked', actor: { kind: 'system' }, payload: { ...revoked, reason: 'discarded' } });
    }
    host.emit({ type: 'change.discarded', actor, payload: { version: latest?.version ?? null } });
    return { discarded: true };
  }
}
