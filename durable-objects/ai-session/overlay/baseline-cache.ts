/**
 * The baseline the session keeps (issue 19): the project context (package, every scope's
 * revision, domain profile, review rule) read from D1 once, held in memory and in the object's
 * own SQLite, and read again only after the Worker said the project moved (the project channel's
 * `baselineMoved`, sent after every package or settings write). So a tool iteration with nothing
 * changed makes no D1 query, and a restarted object needn't re-read D1 either.
 *
 * Only an active session keeps it: the channel tells active sessions only, so an ended session
 * reads D1 each time (and drops what it kept).
 */
import type { Db } from '../../../worker/db/client.ts';
import { loadProjectContext, type ProjectContext } from './baseline.ts';

/** SQLite caps a string at 2 MB; the context is stored in parts well under that (a 10 MB package is ~10 rows). */
const PART_CHARS = 1_000_000;

export class BaselineCache {
  readonly #sql: SqlStorage;
  readonly #db: Db;
  #memory: ProjectContext | null = null;
  /** Bumped by every invalidation: a read that began before one must not keep what it read. */
  #generation = 0;

  constructor(sql: SqlStorage, db: Db) {
    this.#sql = sql;
    this.#db = db;
  }

  /** The project's context; from memory or the object's storage unless it moved since. `keep: false` reads D1 and keeps nothing. */
  async get(projectId: string, keep = true): Promise<ProjectContext> {
    if (!keep) {
      if (this.#memory || this.#storedParts() > 0) this.invalidate();
      return loadProjectContext(this.#db, projectId);
    }
    if (this.#memory?.baseline.projectId === projectId) return this.#memory;
    const stored = this.#readStored();
    if (stored?.baseline.projectId === projectId) return (this.#memory = stored);
    const generation = this.#generation;
    const ctx = await loadProjectContext(this.#db, projectId);
    // A `baselineMoved` that arrived during the read may describe a write the read missed.
    if (generation === this.#generation) {
      this.#memory = ctx;
      this.#store(ctx);
    }
    return ctx;
  }

  /** Keep a context read elsewhere (the Worker's, with who-is-asking, for a new session) as if read here. */
  keep(ctx: ProjectContext): void {
    this.#memory = ctx;
    this.#store(ctx);
  }

  /** The project moved (a save, an apply, a settings change): the next read goes to D1. */
  invalidate(): void {
    this.#generation += 1;
    this.#memory = null;
    this.#sql.exec('DELETE FROM baseline_cache');
  }

  #storedParts(): number {
    return this.#sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM baseline_cache').one().n;
  }

  #readStored(): ProjectContext | null {
    const parts = this.#sql.exec<{ data: string }>('SELECT data FROM baseline_cache ORDER BY part').toArray();
    if (parts.length === 0) return null;
    try {
      return JSON.parse(parts.map((p) => p.data).join('')) as ProjectContext;
    } catch {
      // A torn or foreign value is only a cache miss.
      this.invalidate();
      return null;
    }
  }

  #store(ctx: ProjectContext): void {
    const text = JSON.stringify(ctx);
    this.#sql.exec('DELETE FROM baseline_cache');
    for (let i = 0, part = 0; i < text.length; i += PART_CHARS, part += 1) {
      this.#sql.exec('INSERT INTO baseline_cache (part, data) VALUES (?, ?)', part, text.slice(i, i + PART_CHARS));
    }
  }
}
