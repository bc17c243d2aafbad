/**
 * "Keep" marks: a person's own note that they reviewed a file or a hunk of the draft. Stored in
 * the session's SQLite per user (so it follows them across browsers), keyed by object key and the
 * content hash of the file's change or of the hunk (shared/ai/hunks.ts): a hunk mark still holds
 * after edits elsewhere in the file, and lapses by itself once that hunk's content changes. A mark
 * changes no content, no version and no approval.
 *
 * The table is created here (not in storage.ts) because only this store reads it.
 */
import type { KeepMark } from '../../../shared/api/ai-undo.ts';

interface MarkRow extends Record<string, SqlStorageValue> {
  object_key: string;
  hash: string;
  scope: string;
  version: number | null;
  created_at: string;
}

export class KeepMarkStore {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
    sql.exec(`CREATE TABLE IF NOT EXISTS keep_marks (
      user_id TEXT NOT NULL, object_key TEXT NOT NULL, hash TEXT NOT NULL, scope TEXT NOT NULL,
      version INTEGER, created_at TEXT NOT NULL, PRIMARY KEY (user_id, object_key, hash))`);
  }

  set(userId: string, mark: Omit<KeepMark, 'createdAt'>, kept: boolean): void {
    if (!kept) {
      this.#sql.exec('DELETE FROM keep_marks WHERE user_id = ? AND object_key = ? AND hash = ?', userId, mark.objectKey, mark.hash);
      return;
    }
    this.#sql.exec(
      `INSERT INTO keep_marks (user_id, object_key, hash, scope, version, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (user_id, object_key, hash) DO UPDATE SET version = excluded.version`,
      userId,
      mark.objectKey,
      mark.hash,
      mark.scope,
      mark.version,
      new Date().toISOString(),
    );
  }

  list(userId: string): KeepMark[] {
    return this.#sql
      .exec<MarkRow>('SELECT object_key, hash, scope, version, created_at FROM keep_marks WHERE user_id = ? ORDER BY object_key, created_at', userId)
      .toArray()
      .map((r) => ({ objectKey: r.object_key, hash: r.hash, scope: r.scope === 'file' ? 'file' : 'hunk', version: r.version, createdAt: r.created_at }));
  }
}
