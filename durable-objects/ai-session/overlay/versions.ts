/**
 * Change-set versions. Every stage and every (debounced) co-edit that changes the overlay makes a
 * new version with the content hash of the whole overlay; validation, approvals and apply all name
 * a version and its hash, so what is applied is exactly what was reviewed.
 */
import type { ChangeSet } from '../../../shared/ai/change-set.ts';
import type { ChangedFile } from '../../../shared/ai/overlay.ts';
import type { ChangeValidation } from '../../../shared/ai/validation-result.ts';
import type { VersionSource, VersionStatus } from '../../../shared/api/ai-session-views.ts';

export type { VersionSource, VersionStatus };

export interface ChangeVersion {
  version: number;
  id: string;
  contentHash: string;
  source: VersionSource;
  createdBy: string | null;
  /** The change set the model (or a person through the API) staged; null for a co-edit. */
  changeSet: ChangeSet | null;
  files: ChangedFile[];
  validation: ChangeValidation | null;
  status: VersionStatus;
  createdAt: string;
}

interface VersionRow extends Record<string, SqlStorageValue> {
  version: number;
  id: string;
  content_hash: string;
  source: string;
  created_by: string | null;
  change_set: string | null;
  files: string;
  validation: string | null;
  status: string;
  created_at: string;
}

function fromRow(row: VersionRow): ChangeVersion {
  return {
    version: row.version,
    id: row.id,
    contentHash: row.content_hash,
    source: row.source as VersionSource,
    createdBy: row.created_by,
    changeSet: row.change_set ? (JSON.parse(row.change_set) as ChangeSet) : null,
    files: JSON.parse(row.files) as ChangedFile[],
    validation: row.validation ? (JSON.parse(row.validation) as ChangeValidation) : null,
    status: row.status as VersionStatus,
    createdAt: row.created_at,
  };
}

export class VersionStore {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  latest(): ChangeVersion | undefined {
    const row = this.#sql.exec<VersionRow>('SELECT * FROM versions ORDER BY version DESC LIMIT 1').toArray()[0];
    return row ? fromRow(row) : undefined;
  }

  /** By change-set id (`cs_…`). */
  get(id: string): ChangeVersion | undefined {
    const row = this.#sql.exec<VersionRow>('SELECT * FROM versions WHERE id = ?', id).toArray()[0];
    return row ? fromRow(row) : undefined;
  }

  list(): ChangeVersion[] {
    return this.#sql.exec<VersionRow>('SELECT * FROM versions ORDER BY version').toArray().map(fromRow);
  }

  add(input: Omit<ChangeVersion, 'version' | 'validation' | 'status' | 'createdAt'>): ChangeVersion {
    const version = (this.latest()?.version ?? 0) + 1;
    const createdAt = new Date().toISOString();
    this.#sql.exec(
      `INSERT INTO versions (version, id, content_hash, source, created_by, change_set, files, validation, status, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, NULL, 'staged', ?)`,
      version,
      input.id,
      input.contentHash,
      input.source,
      input.createdBy,
      input.changeSet ? JSON.stringify(input.changeSet) : null,
      JSON.stringify(input.files),
      createdAt,
    );
    return { ...input, version, validation: null, status: 'staged', createdAt };
  }

  setValidation(version: number, validation: ChangeValidation): void {
    this.#sql.exec(
      `UPDATE versions SET validation = ?, status = ? WHERE version = ? AND status IN ('staged', 'validated', 'rejected')`,
      JSON.stringify(validation),
      validation.valid ? 'validated' : 'rejected',
      version,
    );
  }

  setStatus(version: number, status: VersionStatus): void {
    this.#sql.exec('UPDATE versions SET status = ? WHERE version = ?', status, version);
  }
}
