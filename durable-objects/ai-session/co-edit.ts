/**
 * Change-set versions of the session's overlay (session.ts): a version is recorded for each stage
 * and, once co-edits settle, for the edits people made in the shared document; each is validated,
 * mirrored to D1, and approvals of other content are revoked. Resetting drops the overlay.
 */
import { newId } from '../../shared/ids.ts';
import type { ChangeSet } from '../../shared/ai/change-set.ts';
import { summarizeValidation, type ChangeValidation } from '../../shared/ai/validation-result.ts';
import { userActor, type EventActor } from '../../shared/ai/events.ts';
import type { ProjectContext } from './overlay/baseline.ts';
import { mirrorVersion } from './apply/d1-records.ts';
import { impactDigest } from '../../shared/ai/impact-digest.ts';
import { impactOf } from './session-views.ts';
import { changedFiles, overlayHash, type EffectiveView } from './overlay/effective-view.ts';
import type { SessionHost } from './session-host.ts';
import { prepareCheckpoint } from './overlay/checkpoints.ts';
import { readKv, writeKv } from './storage.ts';
import { clearBaseTexts } from './overlay/base-texts.ts';
import type { ChangeVersion, VersionSource } from './overlay/versions.ts';
import type { ChangedFile } from '../../shared/ai/overlay.ts';

/** The baseline's revisions as one string: equal exactly when every scope is at the same revision. */
const revisionsKey = (ctx: ProjectContext): string => JSON.stringify(ctx.baseline.revisions);

/** How long co-edits settle before a new version is made and validated. */
export const REVALIDATE_DEBOUNCE_MS = 750;

export class CoEdit {
  readonly #host: SessionHost;
  /** A keystroke landed since the last `persistEdits`: its re-validation is scheduled there. */
  #editPending = false;
  /** The last validation and what it was computed on (memory only: after a restart apply validates again). */
  #validated: { contentHash: string; revisions: string; validation: ChangeValidation } | null = null;

  constructor(host: SessionHost) {
    this.#host = host;
  }

  /**
   * Make a new version of the current overlay and revoke stale approvals. Every version is made
   * here, so every version gets its checkpoint (overlay/checkpoints.ts) of exactly the entries its
   * content hash names, linked to its `change.staged` event.
   */
  async recordVersion(
    view: EffectiveView,
    source: VersionSource,
    createdBy: { userId: string; name: string } | null,
    changeSet: ChangeSet | null,
    options: { restoredFrom?: number } = {},
  ): Promise<ChangeVersion> {
    const host = this.#host;
    const meta = host.requireMeta();
    const files = changedFiles(view);
    // One read of the entries for both the hash and the checkpoint: a co-edit landing at an await cannot split them.
    const entries = host.overlay.entries();
    const contentHash = await overlayHash(entries);
    const checkpoint = await prepareCheckpoint(entries);
    const version = host.versions.add({ id: newId('cs'), contentHash, source, createdBy: createdBy?.userId ?? null, changeSet, files });
    const actor: EventActor = source === 'ai' ? { kind: 'ai' } : createdBy ? userActor(createdBy) : { kind: 'system' };
    const restoredFrom = options.restoredFrom ?? null;
    const staged = host.emit({
      type: 'change.staged',
      actor,
      payload: { version: version.version, changeSetId: version.id, contentHash, source, files, ...(restoredFrom !== null ? { restoredFrom } : {}) },
    });
    host.checkpoints.save(version.version, checkpoint, { seq: staged.seq, createdByName: createdBy?.name ?? null, restoredFrom });
    for (const revoked of host.review.revoke('content_changed', { exceptHash: contentHash })) {
      host.emit({ type: 'approval.revoked', actor: { kind: 'system' }, payload: { ...revoked, reason: 'content_changed' } });
    }
    await mirrorVersion(host.db, meta, version, null, false, impactDigest(impactOf(meta, view)));
    return version;
  }

  validateVersion(ctx: ProjectContext, view: EffectiveView, version: ChangeVersion): ChangeValidation {
    const host = this.#host;
    const validation = this.#validate(ctx, view, version);
    host.versions.setValidation(version.version, validation);
    host.emit({
      type: 'change.validated',
      actor: { kind: 'system' },
      payload: {
        version: version.version,
        changeSetId: version.id,
        valid: validation.valid,
        errorCount: validation.errors.length,
        warningCount: validation.warnings.length,
        summary: summarizeValidation(validation),
      },
    });
    return validation;
  }

  /**
   * The validation of `version` (the overlay as it is now) on the baseline `ctx`: the one last
   * computed when it was for exactly this content hash on exactly these revisions (apply after a
   * validate: issue 19), else a new one. Validation reads only the package, which the revisions
   * name, and the session's target, which never changes.
   */
  validationOf(ctx: ProjectContext, view: EffectiveView, version: ChangeVersion, files: ChangedFile[]): ChangeValidation {
    const kept = this.#validated;
    if (kept && kept.contentHash === version.contentHash && kept.revisions === revisionsKey(ctx)) return kept.validation;
    return this.#validate(ctx, view, version, files);
  }

  /** `files`: the version's changes as they read against `ctx` (a moved baseline may change an action). */
  #validate(ctx: ProjectContext, view: EffectiveView, version: ChangeVersion, files: ChangedFile[] = version.files): ChangeValidation {
    const validation = this.#host.validateView(ctx, view, files);
    this.#validated = { contentHash: version.contentHash, revisions: revisionsKey(ctx), validation };
    return validation;
  }

  /**
   * A person's Yjs edit landed: re-validate once the edits settle. Who edited is written now (both
   * writes are skipped when nothing changed: the same editor again), as an approval may come next;
   * the debounce task moves with `persistEdits`, beside the keystrokes, so a keystroke writes nothing.
   */
  noteEdit(actor: { userId: string; name: string }): void {
    writeKv(this.#host.sql, 'lastEditor', actor);
    // A co-editor authored this draft too, so they cannot approve it.
    this.#host.requests.addDraftAuthor(actor.userId);
    this.#editPending = true;
  }

  /** Append the relayed keystrokes (overlay-doc.ts) and move the re-validation past them: one commit per burst. */
  persistEdits(): void {
    this.#host.overlay.flush();
    if (!this.#editPending) return;
    this.#editPending = false;
    this.#host.schedule('revalidate', Date.now() + REVALIDATE_DEBOUNCE_MS);
  }

  /** When the overlay moved on from the latest version (co-edits), make and validate a new version. */
  async flushEdits(): Promise<ChangeVersion | undefined> {
    const host = this.#host;
    this.persistEdits();
    const latest = host.versions.latest();
    const hash = await overlayHash(host.overlay.entries());
    if (latest && latest.contentHash === hash) return latest;
    if (host.overlay.size === 0) return latest;
    const { ctx, view } = await host.view();
    const editor = readKv<{ userId: string; name: string }>(host.sql, 'lastEditor') ?? null;
    const version = await this.recordVersion(view, 'edit', editor, null);
    const validation = this.validateVersion(ctx, view, version);
    await mirrorVersion(host.db, host.requireMeta(), version, validation);
    host.sql.exec("DELETE FROM tasks WHERE name = 'revalidate'");
    return host.versions.latest();
  }

  /** Drop the overlay and what was derived from it (declared keys, a pending re-validation, the draft's authors). */
  resetOverlay(): void {
    const host = this.#host;
    host.overlay.clear('reset');
    host.overlay.compact();
    host.sql.exec('DELETE FROM declared_keys');
    clearBaseTexts(host.sql);
    host.sql.exec("DELETE FROM tasks WHERE name = 'revalidate'");
    // The next draft starts without authors (apply, discard and cancel all reset).
    host.requests.clearDraftAuthors();
  }
}
