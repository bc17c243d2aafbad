/**
 * The Workbench's "move the draft onto the new baseline": the rebase's answer (which files merged
 * cleanly, which conflict), a person's resolution of each conflicted file, and their errors. Kept
 * beside `WorkbenchSession` (it reads the session's ids and role, and refreshes it after a write);
 * nothing here touches the DOM.
 */
import type { RebaseFile, RebaseResult } from '../../../shared/api/ai-rebase.ts';
import type { ErrorBody } from '../../../shared/errors.ts';
import { rebaseApi, type RebaseApi } from './rebase-api.ts';
import type { WorkbenchSession } from './session.svelte.ts';

export type ConflictedFile = Extract<RebaseFile, { outcome: 'conflict' }>;

export class RebaseState {
  readonly #session: WorkbenchSession;
  readonly #api: RebaseApi;
  #result = $state.raw<RebaseResult | null>(null);
  #resolved = $state.raw<ReadonlySet<string>>(new Set());
  #pending = $state<'rebase' | string | null>(null);
  #error = $state.raw<{ key: string | null; error: ErrorBody } | null>(null);

  constructor(session: WorkbenchSession, api: RebaseApi = rebaseApi) {
    this.#session = session;
    this.#api = api;
  }

  /** What the last rebase answered, file by file. */
  get files(): RebaseFile[] {
    return this.#result?.files ?? [];
  }
  /** The conflicts still waiting for a person. */
  get conflicts(): ConflictedFile[] {
    return this.files.filter((f): f is ConflictedFile => f.outcome === 'conflict' && !this.#resolved.has(f.key));
  }
  isResolved(key: string): boolean {
    return this.#resolved.has(key);
  }
  /** 'rebase', or the key of the file whose resolution is being saved. */
  get pending(): string | null {
    return this.#pending;
  }
  errorFor(key: string | null): ErrorBody | null {
    return this.#error && this.#error.key === key ? this.#error.error : null;
  }

  /** Editors and owners, on an open session, with no turn and nothing else under way. */
  get canRebase(): boolean {
    const s = this.#session;
    return s.canEdit && s.active && !s.turnOpen && s.pending === null && this.#pending === null && s.sessionId !== null;
  }

  async rebase(): Promise<void> {
    const sessionId = this.#session.sessionId;
    if (!this.canRebase || sessionId === null) return;
    this.#pending = 'rebase';
    this.#error = null;
    try {
      const result = await this.#api.rebase(this.#session.projectId, sessionId);
      if (result.ok) {
        this.#result = result.data;
        this.#resolved = new Set();
      } else {
        this.#error = { key: null, error: result.error };
      }
    } finally {
      this.#pending = null;
    }
    await this.#session.refresh();
  }

  /** Save a person's text for one conflicted file (null: the file stays deleted). True once written. */
  async resolve(file: ConflictedFile, content: string | null): Promise<boolean> {
    const sessionId = this.#session.sessionId;
    if (!this.#session.canEdit || sessionId === null || this.#pending !== null) return false;
    this.#pending = file.key;
    this.#error = null;
    let written = false;
    try {
      const result = await this.#api.resolve(this.#session.projectId, sessionId, { objectKey: file.key, content, baseRevision: file.currentRevision });
      if (result.ok) {
        this.#resolved = new Set([...this.#resolved, file.key]);
        written = true;
      } else {
        this.#error = { key: file.key, error: result.error };
      }
    } finally {
      this.#pending = null;
    }
    await this.#session.refresh();
    return written;
  }
}
