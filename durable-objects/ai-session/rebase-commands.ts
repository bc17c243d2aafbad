/**
 * Moving the draft onto a new baseline (issue 15 item 5), for the session (session.ts runs these
 * one at a time): `rebase` merges every staged file whose baseline moved three ways (the base the
 * draft was made against, the draft, the baseline now); clean merges are written as ONE new version
 * (source `rebase`, by the person, so approvals of older content are revoked) and their baseline
 * marker moves to the current revision; conflicts are returned region by region and left as they
 * are, still listed as moved. `resolve` writes a person's text for one conflicted file the same way.
 *
 * Editors and owners only, never while a turn runs or an apply is under way. A clean merge is
 * mechanical, so it does not make the person an author of the draft; a resolution is their text,
 * so it does (they cannot approve it). A co-edit that lands between rebase and resolve is replaced
 * by the resolution, which the person wrote looking at the draft as it was shown.
 */
import { ApiError } from '../../shared/api-error.ts';
import { sha256Hex } from '../../shared/hash.ts';
import type { RebaseFile, RebaseResult, ResolveRebaseInput, ResolveRebaseResult } from '../../shared/api/ai-rebase.ts';
import type { BaselineDriftView } from '../../shared/api/ai-session-views.ts';
import type { Actor } from '../../shared/ai/session-rpc.ts';
import type { CoEdit } from './co-edit.ts';
import { mirrorVersion } from './apply/d1-records.ts';
import { baseTextOf, keepBaseText } from './overlay/base-texts.ts';
import { baselineDrift } from './overlay/baseline-drift.ts';
import type { ProjectContext } from './overlay/baseline.ts';
import { changedFiles, contentOf, createEffectiveView, overlayHash, type EffectiveView } from './overlay/effective-view.ts';
import type { StagedWrite } from './overlay/overlay-doc.ts';
import { mergeFile } from './overlay/three-way-merge.ts';
import { requireDraftIdle, type SessionHost } from './session-host.ts';
import type { ChangeVersion } from './overlay/versions.ts';

/** A resolved file larger than this many UTF-8 bytes is refused (the asset cap; staged text caps at as many characters). */
export const MAX_RESOLUTION_BYTES = 512 * 1024;

type Moved = BaselineDriftView['moved'][number];

export class RebaseCommands {
  readonly #host: SessionHost;
  readonly #edits: CoEdit;

  constructor(host: SessionHost, edits: CoEdit) {
    this.#host = host;
    this.#edits = edits;
  }

  /** Refused for viewers, while an apply runs and while a turn runs or waits (the AI may be writing these files). */
  #checkMayRebase(actor: Actor): void {
    requireDraftIdle(this.#host, actor, 'move the draft');
  }

  /** The staged files whose baseline moved, read after pending co-edits became a version of their own. */
  async #drift(): Promise<{ ctx: ProjectContext; view: EffectiveView; moved: Moved[] }> {
    const host = this.#host;
    await this.#edits.flushEdits();
    const { ctx, view } = await host.view();
    return { ctx, view, moved: baselineDrift(view, changedFiles(view), host.requireMeta()).moved };
  }

  /** The overlay write that puts `text` on the baseline as it is now, keeping that baseline as the next merge base. */
  async #writeOnCurrent(ctx: ProjectContext, file: Moved, text: string | null): Promise<StagedWrite> {
    const theirs = contentOf(ctx.baseline.pkg, file.key);
    const baseHash = theirs === null ? null : await sha256Hex(theirs);
    if (baseHash !== null) keepBaseText(this.#host.sql, baseHash, theirs!);
    return { key: file.key, deleted: text === null, content: text ?? '', baseRevision: file.currentRevision, baseHash };
  }

  /** Write the overlay, and when its content changed make, validate and mirror one version. */
  async #commit(ctx: ProjectContext, writes: StagedWrite[], actor: Actor): Promise<ChangeVersion | null> {
    const host = this.#host;
    const before = await overlayHash(host.overlay.entries());
    host.overlay.moveBase(writes, 'rebase');
    if ((await overlayHash(host.overlay.entries())) === before) return null;
    const view = createEffectiveView(ctx.baseline, host.overlay.entries());
    const version = await this.#edits.recordVersion(view, 'rebase', actor, null);
    const validation = this.#edits.validateVersion(ctx, view, version);
    await mirrorVersion(host.db, host.requireMeta(), version, validation);
    return host.versions.latest() ?? version;
  }

  async rebase(actor: Actor): Promise<RebaseResult> {
    const host = this.#host;
    this.#checkMayRebase(actor);
    const { ctx, view, moved } = await this.#drift();
    if (moved.length === 0) throw new ApiError('AI_REBASE_NOT_NEEDED');
    const writes: StagedWrite[] = [];
    const files: RebaseFile[] = [];
    for (const file of moved) {
      const entry = view.entries.get(file.key)!;
      const theirs = contentOf(ctx.baseline.pkg, file.key);
      const ours = entry.deleted ? null : entry.content;
      const merge = mergeFile(await baseTextOf(host.sql, entry, theirs), ours, theirs);
      const where = { key: file.key, ...(file.path ? { path: file.path } : {}), baseRevision: file.baseRevision, currentRevision: file.currentRevision };
      if (merge.clean) {
        writes.push(await this.#writeOnCurrent(ctx, file, merge.text));
        files.push({ ...where, outcome: 'merged' });
      } else {
        files.push({ ...where, outcome: 'conflict', kind: merge.kind, chunks: merge.chunks, merged: merge.merged, ours, theirs });
      }
    }
    const version = writes.length > 0 ? await this.#commit(ctx, writes, actor) : null;
    return {
      files,
      changeSetId: version?.id ?? null,
      version: version?.version ?? null,
      contentHash: await overlayHash(host.overlay.entries()),
    };
  }

  /** A person's text for one conflicted file: checked like a stage (size in bytes), written, its baseline moved. */
  async resolve(actor: Actor, input: ResolveRebaseInput): Promise<ResolveRebaseResult> {
    const host = this.#host;
    this.#checkMayRebase(actor);
    if (input.content !== null && new TextEncoder().encode(input.content).byteLength > MAX_RESOLUTION_BYTES) {
      throw new ApiError('AI_REBASE_TOO_LARGE', {
        message: `The resolved file is larger than ${MAX_RESOLUTION_BYTES / 1024} KiB; nothing was changed.`,
        hints: ['Shorten the file, or split its content into an asset.'],
      });
    }
    const { ctx, moved } = await this.#drift();
    const file = moved.find((m) => m.key === input.objectKey);
    if (!file) throw new ApiError('AI_REBASE_FILE_NOT_MOVED', { hints: ['Move the draft onto the new baseline again to see which files still conflict.'] });
    if (file.currentRevision !== input.baseRevision) {
      throw new ApiError('AI_REBASE_STALE', { extra: { currentRevision: file.currentRevision } });
    }
    host.requests.addDraftAuthor(actor.userId);
    const write = await this.#writeOnCurrent(ctx, file, input.content);
    const version = (await this.#commit(ctx, [write], actor)) ?? host.versions.latest();
    if (!version) throw new ApiError('AI_NO_STAGED_CHANGES');
    return {
      key: file.key,
      changeSetId: version.id,
      version: version.version,
      contentHash: version.contentHash,
      valid: version.validation?.valid ?? false,
    };
  }
}
