/**
 * Checkpoints of the draft: every version stores its overlay's files content-addressed in the
 * object's SQLite — a blob per distinct text (keyed by its SHA-256), and per version a map of object
 * key → blob hash, deleted flag and the baseline the entry was staged on. A file unchanged between
 * versions is the same blob, so it costs one small map entry, not another copy.
 *
 * Plain texts rather than Yjs snapshots: the overlay's update log is compacted and its document
 * garbage-collected, which would make an old Yjs snapshot unreadable.
 */
import type { OverlayEntry } from '../../../shared/ai/overlay.ts';
import { sha256Hex } from '../../../shared/hash.ts';

/** One file of a checkpoint, as stored (`hash` names the blob; '' for a deleted file). */
export interface CheckpointFile {
  hash: string;
  deleted: boolean;
  baseRevision: number;
  baseHash: string | null;
}

/** A checkpoint's files, hashed and ready to save (computed before the version is recorded). */
export interface PreparedCheckpoint {
  files: Record<string, CheckpointFile>;
  blobs: Map<string, string>;
}

export interface Checkpoint {
  version: number;
  /** The seq of the version's `change.staged` event. */
  seq: number;
  createdByName: string | null;
  /** For a restore: the version whose checkpoint was restored. */
  restoredFrom: number | null;
  files: Record<string, CheckpointFile>;
}

/** A file of a checkpoint with its text (null when the draft deletes it). */
export interface CheckpointText {
  key: string;
  content: string | null;
  baseRevision: number;
  baseHash: string | null;
}

interface CheckpointRow extends Record<string, SqlStorageValue> {
  version: number;
  seq: number;
  created_by_name: string | null;
  restored_from: number | null;
  files: string;
}

function fromRow(row: CheckpointRow): Checkpoint {
  return {
    version: row.version,
    seq: row.seq,
    createdByName: row.created_by_name,
    restoredFrom: row.restored_from,
    files: JSON.parse(row.files) as Record<string, CheckpointFile>,
  };
}

/** Hash the draft's files (async, so it runs before the synchronous save). */
export async function prepareCheckpoint(entries: readonly OverlayEntry[]): Promise<PreparedCheckpoint> {
  const files: Record<string, CheckpointFile> = {};
  const blobs = new Map<string, string>();
  for (const entry of entries) {
    let hash = '';
    if (!entry.deleted) {
      hash = await sha256Hex(entry.content);
      blobs.set(hash, entry.content);
    }
    files[entry.key] = { hash, deleted: entry.deleted, baseRevision: entry.baseRevision, baseHash: entry.baseHash };
  }
  return { files, blobs };
}

export class CheckpointStore {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** Store a version's checkpoint; a blob already stored (same hash) is not written again. */
  save(version: number, prepared: PreparedCheckpoint, info: { seq: number; createdByName: string | null; restoredFrom: number | null }): void {
    for (const [hash, text] of prepared.blobs) {
      this.#sql.exec('INSERT INTO checkpoint_blobs (hash, text) VALUES (?, ?) ON CONFLICT(hash) DO NOTHING', hash, text);
    }
    this.#sql.exec(
      'INSERT INTO checkpoints (version, seq, created_by_name, restored_from, files) VALUES (?, ?, ?, ?, ?)',
      version,
      info.seq,
      info.createdByName,
      info.restoredFrom,
      JSON.stringify(prepared.files),
    );
  }

  get(version: number): Checkpoint | undefined {
    const row = this.#sql.exec<CheckpointRow>('SELECT * FROM checkpoints WHERE version = ?', version).toArray()[0];
    return row ? fromRow(row) : undefined;
  }

  list(): Checkpoint[] {
    return this.#sql.exec<CheckpointRow>('SELECT * FROM checkpoints ORDER BY version').toArray().map(fromRow);
  }

  /** The files of a checkpoint with their texts, by object key. */
  texts(checkpoint: Checkpoint): Map<string, CheckpointText> {
    const out = new Map<string, CheckpointText>();
    for (const [key, file] of Object.entries(checkpoint.files)) {
      let content: string | null = null;
      if (!file.deleted) {
        const row = this.#sql.exec<{ text: string }>('SELECT text FROM checkpoint_blobs WHERE hash = ?', file.hash).toArray()[0];
        // A blob is never deleted while its checkpoint exists; a missing one would be a storage fault.
        if (!row) throw new Error('checkpoint blob missing');
        content = row.text;
      }
      out.set(key, { key, content, baseRevision: file.baseRevision, baseHash: file.baseHash });
    }
    return out;
  }
}
