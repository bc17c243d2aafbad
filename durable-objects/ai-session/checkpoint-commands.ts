/**
 * The versions timeline, comparing two versions and restoring a checkpoint (session.ts runs the
 * restore one at a time with the other mutations). Everyone on the session may list and compare;
 * restoring is an editor's change of the draft, recorded as a new version (source `restore`) that
 * revokes approvals of other content like any edit. While a turn is open (running or paused) a
 * restore is refused rather than queued: the AI would go on writing over a draft it did not see.
 */
import { ApiError } from '../../shared/api-error.ts';
import type { FileDiff } from '../../shared/api/ai-session-views.ts';
import type { CompareSide, CompareView, RestoreResult, TimelineVersion, VersionsTimelineView } from '../../shared/api/ai-versions.ts';
import type { Actor } from '../../shared/ai/session-rpc.ts';
import { mirrorVersion } from './apply/d1-records.ts';
import type { CoEdit } from './co-edit.ts';
import { contentOf, createEffectiveView, pathOf } from './overlay/effective-view.ts';
import type { Checkpoint } from './overlay/checkpoints.ts';
import type { StagedWrite } from './overlay/overlay-doc.ts';
import { requireEditor, type SessionHost } from './session-host.ts';

export class CheckpointCommands {
  readonly #host: SessionHost;
  readonly #edits: CoEdit;

  constructor(host: SessionHost, edits: CoEdit) {
    this.#host = host;
    this.#edits = edits;
  }

  timeline(): VersionsTimelineView {
    const host = this.#host;
    host.requireMeta();
    const checkpoints = new Map(host.checkpoints.list().map((c) => [c.version, c]));
    const versions = host.versions.list().map((v): TimelineVersion => {
      const checkpoint = checkpoints.get(v.version);
      return {
        version: v.version,
        changeSetId: v.id,
        contentHash: v.contentHash,
        source: v.source,
        status: v.status,
        createdBy: v.createdBy ? { userId: v.createdBy, name: checkpoint?.createdByName ?? null } : null,
        createdAt: v.createdAt,
        files: v.files,
        seq: checkpoint?.seq ?? null,
        checkpoint: checkpoint !== undefined,
        restoredFrom: checkpoint?.restoredFrom ?? null,
      };
    });
    return { versions };
  }

  #checkpoint(version: number): Checkpoint {
    const checkpoint = this.#host.checkpoints.get(version);
    if (checkpoint) return checkpoint;
    throw new ApiError('AI_CHECKPOINT_NOT_FOUND', {
      message: this.#host.versions.list().some((v) => v.version === version)
        ? `Version ${version} was made before checkpoints were kept, so its files cannot be compared or restored.`
        : `There is no version ${version} in this session.`,
      hints: ['Pick a version from the session\'s versions timeline.'],
    });
  }

  /** Per file that differs between the two sides, its text on each side. */
  async compare(from: CompareSide, to: CompareSide): Promise<CompareView> {
    const host = this.#host;
    host.requireMeta();
    const sides = [from, to].map((side) => (side === 'baseline' ? null : host.checkpoints.texts(this.#checkpoint(side))));
    const ctx = await host.context();
    const keys = [...new Set(sides.flatMap((texts) => (texts ? [...texts.keys()] : [])))].sort();
    const textOf = (texts: (typeof sides)[number], key: string): string | null => {
      const staged = texts?.get(key);
      return staged ? staged.content : contentOf(ctx.baseline.pkg, key);
    };
    // A file only a checkpoint has (a new step) gets its path from that checkpoint's package.
    const views = sides.map((texts) =>
      texts ? createEffectiveView(ctx.baseline, [...texts.values()].map((t) => ({ ...t, deleted: t.content === null, content: t.content ?? '' }))) : null,
    );
    const files: FileDiff[] = [];
    for (const key of keys) {
      const before = textOf(sides[0]!, key);
      const after = textOf(sides[1]!, key);
      if (before === after) continue;
      const path = pathOf(ctx.baseline.pkg, key) ?? views.map((v) => v && pathOf(v.pkg, key)).find(Boolean);
      files.push({ key, action: before === null ? 'A' : after === null ? 'D' : 'M', ...(path ? { path } : {}), before, after });
    }
    return { from, to, files };
  }

  /** Bring the draft back to a checkpoint, as a new version. */
  async restore(actor: Actor, version: number): Promise<RestoreResult> {
    const host = this.#host;
    host.requireActive();
    requireEditor(actor);
    if (host.applying()) throw new ApiError('AI_SESSION_BUSY');
    const turn = host.turns.open();
    if (turn) {
      throw new ApiError('AI_RESTORE_TURN_RUNNING', {
        hints: [turn.status === 'paused' ? 'Stop the paused turn, then restore.' : 'Wait for the AI to finish, or stop it, then restore.'],
        extra: { turnId: turn.id, turnStatus: turn.status },
      });
    }
    const checkpoint = this.#checkpoint(version);
    // Co-edits not yet in a version become one first: what the restore replaces stays restorable.
    await this.#edits.flushEdits();
    const texts = host.checkpoints.texts(checkpoint);
    const writes: StagedWrite[] = [...texts.values()].map((t) => ({
      key: t.key,
      deleted: t.content === null,
      content: t.content ?? '',
      baseRevision: t.baseRevision,
      baseHash: t.baseHash,
    }));
    const removed = host.overlay.entries().filter((e) => !texts.has(e.key)).map((e) => e.key);
    // One Yjs update for the whole restore: viewers see the draft jump to the checkpoint at once.
    host.overlay.doc.transact(() => {
      host.overlay.stage(writes, 'restore');
      host.overlay.remove(removed, 'restore');
    }, 'restore');
    host.requests.addDraftAuthor(actor.userId);
    const ctx = await host.context();
    const view = createEffectiveView(ctx.baseline, host.overlay.entries());
    const made = await this.#edits.recordVersion(view, 'restore', actor, null, { restoredFrom: version });
    const validation = this.#edits.validateVersion(ctx, view, made);
    await mirrorVersion(host.db, host.requireMeta(), made, validation);
    return { changeSetId: made.id, version: made.version, contentHash: made.contentHash, restoredFrom: version };
  }
}

