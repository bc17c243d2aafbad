/**
 * Keep and undo in the changes pane (issue 16): this person's "kept" marks on files and hunks
 * (stored on the session, so they follow them across browsers), undo of a file, a hunk or a node or
 * edge of a graph (a new version on the server), the undo of an undo, what this person's last one
 * did (`notice`, or `error` when it was refused), and the undos everyone made, from the events.
 */
import type { SessionEvent } from '../../../shared/ai/events.ts';
import type { KeepMark, UndoResult } from '../../../shared/api/ai-undo.ts';
import { fileChangeHash, type Hunk } from '../../../shared/ai/hunks.ts';
import type { ErrorBody } from '../../../shared/errors.ts';
import type { GraphUndoResult } from '../../../shared/ai/session-rpc.ts';
import type { FileDiffView } from './types.ts';
import type { WorkbenchSession } from './session.svelte.ts';
import { undoApi, type UndoApi } from './undo-api.ts';
import { undoGraphPart, type GraphPart } from './graph-undo-api.ts';

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
  /** The node or edge of a graph undone (what it was in the draft); null for a file or a hunk. */
  part: GraphUndoResult['undone'] | null;
  version: number;
}

/** What an undo answered, as the notice needs it. */
type Done = { ok: true; data: Pick<UndoResult, 'objectKey' | 'version'> & { part?: GraphUndoResult['undone'] } } | { ok: false; error: ErrorBody };

export class HunkReview {
  readonly #session: WorkbenchSession;
  readonly #api: UndoApi;
  readonly #stop: () => void;
  #marks = $state.raw<KeepMark[]>([]);
  #undos = $state.raw<UndoEntry[]>([]);
  #pending = $state(false);
  #error = $state.raw<ErrorBody | null>(null);
  #errorOnGraph = $state(false);
  #notice = $state.raw<UndoNotice | null>(null);
  #loadedFor: string | null = null;

  readonly #graphUndo: typeof undoGraphPart;

  constructor(session: WorkbenchSession, api: UndoApi = undoApi, graphUndo: typeof undoGraphPart = undoGraphPart) {
    this.#session = session;
    this.#api = api;
    this.#graphUndo = graphUndo;
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

  /** The refusal in `error` was of a graph's node or edge. */
  get errorOnGraph(): boolean {
    return this.#errorOnGraph;
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
    this.#errorOnGraph = false;
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

  /** Undo one node or edge of a workflow's staged graph, on the version the diff shows. */
  undoGraphPart(workflowId: string, part: GraphPart): Promise<boolean> {
    const shown = this.#session.changes;
    if (!shown?.changeSetId) return Promise.resolve(false);
    const input = { changeSetId: shown.changeSetId, contentHash: shown.contentHash, workflowId, part };
    return this.#run({ kind: 'undo', hunkStart: null }, async (projectId, sessionId): Promise<Done> => {
      const result = await this.#graphUndo(projectId, sessionId, input);
      return result.ok ? { ok: true, data: { objectKey: `graph:${workflowId}`, version: result.data.version, part: result.data.undone } } : result;
    }, true);
  }

  async #run(
    what: Pick<UndoNotice, 'kind' | 'hunkStart'>,
    call: (projectId: string, sessionId: string) => Promise<Done>,
    onGraph = false,
  ): Promise<boolean> {
    const sessionId = this.#session.sessionId;
    if (!sessionId || this.#pending) return false;
    this.#pending = true;
    try {
      const result = await call(this.#session.projectId, sessionId);
      this.#error = result.ok ? null : result.error;
      this.#errorOnGraph = !result.ok && onGraph;
      this.#notice = result.ok ? { ...what, objectKey: result.data.objectKey, version: result.data.version, part: result.data.part ?? null } : null;
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
