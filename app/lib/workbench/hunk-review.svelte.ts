/**
 * Keep and undo in the changes pane (issue 16): this person's "kept" marks on files and hunks
 * (stored on the session, so they follow them across browsers), undo of a file or a hunk (a new
 * version on the server), the undo of an undo, what this person's last one did (`notice`), and the
 * undos everyone made, from the events.
 */
import type { SessionEvent } from '../../../shared/ai/events.ts';
import type { KeepMark, UndoResult } from '../../../shared/api/ai-undo.ts';
import { fileChangeHash, type Hunk } from '../../../shared/ai/hunks.ts';
import type { ErrorBody } from '../../../shared/errors.ts';
import type { FileDiffView } from './types.ts';
import type { WorkbenchSession } from './session.svelte.ts';
import { undoApi, type UndoApi } from './undo-api.ts';

/** One undo as the timeline lists it. */
export interface UndoEntry {
  seq: number;
  undoId: string;
  objectKey: string;
  /** Null when not a person: the timeline says "someone" in the reader's language. */
  by: string | null;
  kind: 'undo' | 'reapply';
  hunkStart: number | null;
  version: number | null;
}

/** What this person's last undo (or re-apply) did, for the word shown where they are. */
export interface UndoNotice {
  kind: 'undo' | 'reapply';
  objectKey: string;
  /** The hunk's first line when one hunk was undone; null for the whole file. */
  hunkStart: number | null;
  version: number;
}

export class HunkReview {
  readonly #session: WorkbenchSession;
  readonly #api: UndoApi;
  readonly #stop: () => void;
  #marks = $state.raw<KeepMark[]>([]);
  #undos = $state.raw<UndoEntry[]>([]);
  #pending = $state(false);
  #error = $state.raw<ErrorBody | null>(null);
  #notice = $state.raw<UndoNotice | null>(null);
  #loadedFor: string | null = null;

  constructor(session: WorkbenchSession, api: UndoApi = undoApi) {
    this.#session = session;
    this.#api = api;
    this.#stop = session.onEvents((fresh) => this.#hear(fresh));
  }

  get undos(): UndoEntry[] {
    return this.#undos;
  }

  get pending(): boolean {
    return this.#pending;
  }

  get error(): ErrorBody | null {
    return this.#error;
  }

  get notice(): UndoNotice | null {
    return this.#notice;
  }

  /** Read this person's marks once per session (called when the pane shows). */
  async load(): Promise<void> {
    const sessionId = this.#session.sessionId;
    if (!sessionId || this.#loadedFor === sessionId) return;
    this.#loadedFor = sessionId;
    const marks = await this.#api.keepMarks(this.#session.projectId, sessionId);
    if (marks.ok) this.#marks = marks.data;
  }

  fileKept(file: FileDiffView): boolean {
    const hash = fileChangeHash(file.before, file.after);
    return this.#marks.some((m) => m.objectKey === file.key && m.scope === 'file' && m.hash === hash);
  }

  hunkKept(key: string, hunk: Hunk): boolean {
    return this.#marks.some((m) => m.objectKey === key && m.scope === 'hunk' && m.hash === hunk.hash);
  }

  keepFile(file: FileDiffView, kept: boolean): Promise<boolean> {
    return this.#keep({ objectKey: file.key, hash: fileChangeHash(file.before, file.after), scope: 'file', kept });
  }

  keepHunk(key: string, hunk: Hunk, kept: boolean): Promise<boolean> {
    return this.#keep({ objectKey: key, hash: hunk.hash, scope: 'hunk', kept });
  }

  async #keep(input: { objectKey: string; hash: string; scope: 'file' | 'hunk'; kept: boolean }): Promise<boolean> {
    const sessionId = this.#session.sessionId;
    if (!sessionId) return false;
    const result = await this.#api.keep(this.#session.projectId, sessionId, input);
    this.#error = result.ok ? null : result.error;
    if (result.ok) this.#marks = result.data;
    return result.ok;
  }

  undoFile(file: FileDiffView): Promise<boolean> {
    return this.#run({ kind: 'undo', hunkStart: null }, (projectId, sessionId) =>
      this.#api.undo(projectId, sessionId, { objectKey: file.key, version: this.#session.changes?.version ?? null, fileHash: fileChangeHash(file.before, file.after) }),
    );
  }

  undoHunk(key: string, hunk: Hunk): Promise<boolean> {
    return this.#run({ kind: 'undo', hunkStart: hunk.newStart }, (projectId, sessionId) =>
      this.#api.undo(projectId, sessionId, { objectKey: key, version: this.#session.changes?.version ?? null, hunk: { hash: hunk.hash, newStart: hunk.newStart } }),
    );
  }

  reapply(undoId: string): Promise<boolean> {
    return this.#run({ kind: 'reapply', hunkStart: null }, (projectId, sessionId) => this.#api.reapply(projectId, sessionId, undoId));
  }

  async #run(
    what: Pick<UndoNotice, 'kind' | 'hunkStart'>,
    call: (projectId: string, sessionId: string) => Promise<{ ok: true; data: UndoResult } | { ok: false; error: ErrorBody }>,
  ): Promise<boolean> {
    const sessionId = this.#session.sessionId;
    if (!sessionId || this.#pending) return false;
    this.#pending = true;
    try {
      const result = await call(this.#session.projectId, sessionId);
      this.#error = result.ok ? null : result.error;
      this.#notice = result.ok ? { ...what, objectKey: result.data.objectKey, version: result.data.version } : null;
      if (result.ok) await this.#session.refresh();
      return result.ok;
    } finally {
      this.#pending = false;
    }
  }

  #hear(fresh: SessionEvent[]): void {
    const entries: UndoEntry[] = [];
    for (const event of fresh) {
      if (event.type !== 'change.undone' || this.#undos.some((u) => u.seq === event.seq)) continue;
      entries.push({
        seq: event.seq,
        undoId: event.payload.undoId,
        objectKey: event.payload.objectKey,
        by: event.actor.kind === 'user' ? event.actor.name : null,
        kind: event.payload.kind,
        hunkStart: event.payload.hunk?.newStart ?? null,
        version: event.payload.version,
      });
    }
    if (entries.length > 0) this.#undos = [...this.#undos, ...entries];
  }

  dispose(): void {
    this.#stop();
  }
}
