/**
 * Undo per file and per hunk (issue 16), and the undo of an undo, for editors and owners
 * (session.ts runs them one at a time). Computed here from the draft's text as it is now and the
 * baseline, never from text the client sends: the client names the file and the hunk it saw (its
 * content hash), and a hunk whose content changed meanwhile is refused with AI_HUNK_CHANGED, never
 * overwritten. Each undo is an ordinary new version (source `undo`, by that person, so approvals of the
 * older version are revoked and checkpoints of versions cover it) plus a `change.undone` event.
 *
 * Nothing is lost: the undo log keeps the file's entry as it was before, and `reapply` puts it back
 * when the file still holds exactly what the undo left there.
 */
import { ApiError } from '../../shared/api-error.ts';
import { newId } from '../../shared/ids.ts';
import { userActor } from '../../shared/ai/events.ts';
import { fileChangeHash, findHunk, hunksOf, revertHunks, type Hunk } from '../../shared/ai/hunks.ts';
import type { Actor } from '../../shared/ai/session-rpc.ts';
import type { UndoInput, UndoResult } from '../../shared/api/ai-undo.ts';
import type { OverlayEntry } from '../../shared/ai/overlay.ts';
import { mirrorVersion } from './apply/d1-records.ts';
import type { CoEdit } from './co-edit.ts';
import { contentOf, createEffectiveView } from './overlay/effective-view.ts';
import { requireDraftIdle, type SessionHost } from './session-host.ts';

interface UndoRow extends Record<string, SqlStorageValue> {
  id: string;
  object_key: string;
  before_entry: string | null;
  after_entry: string | null;
}

/** The entry's state as the undo log stores it; null: no entry (the file is at its baseline). */
type EntryState = OverlayEntry | null;

function sameState(a: EntryState, b: EntryState): boolean {
  if (a === null || b === null) return a === b;
  return a.deleted === b.deleted && a.content === b.content;
}

function changed(message: string): ApiError {
  return new ApiError('AI_HUNK_CHANGED', { message, hints: ['Reload the changes, look at the part again, then undo it.'] });
}

export class UndoCommands {
  readonly #host: SessionHost;
  readonly #edits: CoEdit;

  constructor(host: SessionHost, edits: CoEdit) {
    this.#host = host;
    this.#edits = edits;
    host.sql.exec(`CREATE TABLE IF NOT EXISTS undo_log (
      id TEXT PRIMARY KEY, object_key TEXT NOT NULL, user_id TEXT NOT NULL, kind TEXT NOT NULL,
      before_entry TEXT, after_entry TEXT, created_at TEXT NOT NULL)`);
  }

  /** Editors and owners, on an open session, while neither a turn nor an apply runs. */
  #check(actor: Actor): void {
    requireDraftIdle(this.#host, actor, 'undo');
  }

  async undo(actor: Actor, input: UndoInput): Promise<UndoResult> {
    this.#check(actor);
    const host = this.#host;
    // Pending co-edits first become their own version, by their own author.
    await this.#edits.flushEdits();
    const { ctx } = await host.view();
    const entry = host.overlay.entry(input.objectKey) ?? null;
    const before = contentOf(ctx.baseline.pkg, input.objectKey);
    if (entry === null) throw changed('This file is no longer changed in the draft.');
    const after = entry.deleted ? null : entry.content;
    if (before === null && after === null) throw changed('This file is no longer changed in the draft.');

    let next: string | null = null;
    let hunk: Hunk | null = null;
    const hunks = hunksOf(before, after);
    if (input.hunk && !entry.deleted && hunks.length > 1) {
      hunk = findHunk(hunks, input.hunk) ?? null;
      if (!hunk) throw changed('That part of the draft changed since you saw it, so it was not undone.');
      const picked = hunk;
      next = revertHunks(before, after, (h) => h.index === picked.index);
    } else {
      // The whole file (or its only hunk): the content the client saw must be the content now.
      const seen = input.hunk ? (findHunk(hunks, input.hunk) ? 'same' : 'changed') : input.fileHash === fileChangeHash(before, after) ? 'same' : 'changed';
      if (seen === 'changed') throw changed('This file changed since you saw it, so it was not undone.');
      hunk = input.hunk ? (hunks[0] ?? null) : null;
    }
    // Back to the baseline text: the file leaves the draft (an added file is removed).
    const removed = next === null || next === (before ?? '');
    if (removed) host.overlay.remove([input.objectKey], 'undo');
    else host.overlay.stage([{ key: input.objectKey, deleted: false, content: next!, baseRevision: entry.baseRevision, baseHash: entry.baseHash }], 'undo');
    const afterState = removed ? null : (host.overlay.entry(input.objectKey) ?? null);
    return this.#record(actor, input.objectKey, 'undo', entry, afterState, hunk);
  }

  /** Undo an undo: put the file back as it was before it, when nobody changed it since. */
  async reapply(actor: Actor, undoId: string): Promise<UndoResult> {
    this.#check(actor);
    const host = this.#host;
    await this.#edits.flushEdits();
    const row = host.sql.exec<UndoRow>('SELECT id, object_key, before_entry, after_entry FROM undo_log WHERE id = ?', undoId).toArray()[0];
    if (!row) throw new ApiError('AI_UNDO_NOT_FOUND');
    const wanted = row.before_entry ? (JSON.parse(row.before_entry) as OverlayEntry) : null;
    const left = row.after_entry ? (JSON.parse(row.after_entry) as OverlayEntry) : null;
    const now = host.overlay.entry(row.object_key) ?? null;
    if (!sameState(now, left)) throw changed('The file changed after that undo, so it was not re-applied. Restore a checkpoint instead.');
    if (wanted === null) host.overlay.remove([row.object_key], 'undo');
    else host.overlay.stage([wanted], 'undo');
    return this.#record(actor, row.object_key, 'reapply', now, wanted, null);
  }

  async #record(actor: Actor, key: string, kind: 'undo' | 'reapply', beforeState: EntryState, afterState: EntryState, hunk: Hunk | null): Promise<UndoResult> {
    const host = this.#host;
    const undoId = newId('undo');
    host.sql.exec(
      'INSERT INTO undo_log (id, object_key, user_id, kind, before_entry, after_entry, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      undoId,
      key,
      actor.userId,
      kind,
      beforeState ? JSON.stringify(beforeState) : null,
      afterState ? JSON.stringify(afterState) : null,
      new Date().toISOString(),
    );
    // An undo edits the draft: its author may not approve it, like any co-editor.
    host.requests.addDraftAuthor(actor.userId);
    const ctx = await host.context();
    const view = createEffectiveView(ctx.baseline, host.overlay.entries());
    const version = await this.#edits.recordVersion(view, 'undo', actor, null);
    if (version.files.length > 0) await mirrorVersion(host.db, host.requireMeta(), version, this.#edits.validateVersion(ctx, view, version));
    const removed = afterState === null;
    host.emit({
      type: 'change.undone',
      actor: userActor(actor),
      payload: {
        undoId,
        objectKey: key,
        hunk: hunk ? { newStart: hunk.newStart, newLines: hunk.newLines, oldStart: hunk.oldStart, oldLines: hunk.oldLines } : null,
        kind,
        removed,
        version: version.version,
      },
    });
    return { undoId, objectKey: key, version: version.version, changeSetId: version.id, removed };
  }
}
