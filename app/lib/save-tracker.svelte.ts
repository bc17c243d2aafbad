/**
 * The save state every editor shares: saving, reloading, what the last save produced (revision,
 * the server's issues for the file, whole-package counts), a revision conflict, another error.
 * `SaveStatus` shows it; editors only say how to save and how to reload.
 */
import type { ValidationIssue } from '../../shared/bmad/index.ts';
import type { ErrorBody } from '../../shared/errors.ts';
import { currentRevision, type ApiResult, type PackageIssueCounts, type SaveResult } from './api.ts';

export type SaveOutcome =
  | { type: 'saved'; revision: number; issues: ValidationIssue[]; packageIssues: PackageIssueCounts | null }
  | { type: 'conflict'; error: ErrorBody; currentRevision: number | undefined }
  | { type: 'failed'; error: ErrorBody };

/** A write's API answer as a SaveOutcome: a stale revision (409 REVISION_CONFLICT) is a conflict. */
export function saveOutcome(result: ApiResult<SaveResult>): SaveOutcome {
  if (result.ok) {
    return { type: 'saved', revision: result.data.revision, issues: result.data.issues ?? [], packageIssues: result.data.packageIssues ?? null };
  }
  if (result.error.code === 'REVISION_CONFLICT') {
    return { type: 'conflict', error: result.error, currentRevision: currentRevision(result.error) };
  }
  return { type: 'failed', error: result.error };
}

export class SaveTracker {
  #saving = $state(false);
  #reloading = $state(false);
  #savedRevision = $state<number | null>(null);
  #savedIssues = $state<ValidationIssue[] | null>(null);
  #packageIssues = $state<PackageIssueCounts | null>(null);
  #conflict = $state<ErrorBody | null>(null);
  #error = $state<ErrorBody | null>(null);

  get saving() {
    return this.#saving;
  }
  get reloading() {
    return this.#reloading;
  }
  get savedRevision() {
    return this.#savedRevision;
  }
  get savedIssues() {
    return this.#savedIssues;
  }
  get packageIssues() {
    return this.#packageIssues;
  }
  get conflict() {
    return this.#conflict;
  }
  get error() {
    return this.#error;
  }

  /** Runs one save at a time; resolves with its outcome, or undefined when a save was already running. */
  async save(run: () => Promise<SaveOutcome>): Promise<SaveOutcome | undefined> {
    if (this.#saving) return undefined;
    this.#saving = true;
    this.#error = null;
    this.#conflict = null;
    try {
      const outcome = await run();
      switch (outcome.type) {
        case 'saved':
          this.#savedRevision = outcome.revision;
          this.#savedIssues = outcome.issues;
          this.#packageIssues = outcome.packageIssues;
          break;
        case 'conflict':
          this.#conflict = outcome.error;
          break;
        case 'failed':
          this.#error = outcome.error;
          break;
        default: {
          const never: never = outcome;
          throw new Error(`unknown save outcome ${String(never)}`);
        }
      }
      return outcome;
    } finally {
      this.#saving = false;
    }
  }

  /** Reloads the stored version after a conflict; the editor keeps its text. */
  async reload(run: () => Promise<{ ok: true } | { ok: false; error: ErrorBody } | void>): Promise<void> {
    this.#reloading = true;
    try {
      const result = await run();
      if (result && !result.ok) this.#error = result.error;
      else this.#conflict = null;
    } finally {
      this.#reloading = false;
    }
  }

  /** Another write of the editor (rename, delete) failed: a stale revision shows as a conflict. */
  fail(error: ErrorBody): void {
    if (error.code === 'REVISION_CONFLICT') this.#conflict = error;
    else this.#error = error;
  }

  clearError(): void {
    this.#error = null;
  }
}
