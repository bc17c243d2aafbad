/**
 * The blocking side of review: open "request changes" (each blocks Apply until its author approves,
 * withdraws it, or an owner dismisses it with a reason), an owner's recorded override of the
 * approval count for one content hash, and who authored the current draft (they may not approve it).
 */
import { newId } from '../../../shared/ids.ts';
import type { ApprovalOverride, ChangeRequest } from '../../../shared/api/ai-session-views.ts';
import { readKv, writeKv } from '../storage.ts';

export type CloseReason = 'approved' | 'withdrawn' | 'dismissed';

interface RequestRow extends Record<string, SqlStorageValue> {
  id: string;
  version: number;
  user_id: string;
  user_name: string;
  body: string;
  created_at: string;
}

interface StoredOverride extends ApprovalOverride {
  contentHash: string;
}

export class ChangeRequestStore {
  readonly #sql: SqlStorage;
  /** Draft authors this instance wrote since the draft was last cleared (the table is only written here). */
  readonly #authorsWritten = new Set<string>();

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  add(actor: { userId: string; name: string }, version: number, body: string): string {
    const id = newId('crq');
    this.#sql.exec(
      'INSERT INTO change_requests (id, version, user_id, user_name, body, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      id,
      version,
      actor.userId,
      actor.name,
      body,
      new Date().toISOString(),
    );
    return id;
  }

  /** Open requests, oldest first (optionally one person's). */
  open(userId?: string): ChangeRequest[] {
    const rows =
      userId === undefined
        ? this.#sql.exec<RequestRow>('SELECT * FROM change_requests WHERE closed_at IS NULL ORDER BY created_at, id').toArray()
        : this.#sql.exec<RequestRow>('SELECT * FROM change_requests WHERE closed_at IS NULL AND user_id = ? ORDER BY created_at, id', userId).toArray();
    return rows.map((r) => ({ id: r.id, version: r.version, userId: r.user_id, userName: r.user_name, body: r.body, createdAt: r.created_at }));
  }

  close(id: string, reason: CloseReason, closedBy: string, note: string | null): void {
    this.#sql.exec(
      'UPDATE change_requests SET closed_at = ?, closed_by = ?, close_reason = ?, close_note = ? WHERE id = ? AND closed_at IS NULL',
      new Date().toISOString(),
      closedBy,
      reason,
      note,
      id,
    );
  }

  setOverride(contentHash: string, override: ApprovalOverride): void {
    writeKv(this.#sql, 'approvalOverride', { ...override, contentHash } satisfies StoredOverride);
  }

  /** The override recorded for exactly this content (an edit makes it stale, like an approval). */
  override(contentHash: string): ApprovalOverride | null {
    const stored = readKv<StoredOverride>(this.#sql, 'approvalOverride');
    if (!stored || stored.contentHash !== contentHash) return null;
    const { contentHash: _hash, ...override } = stored;
    return override;
  }

  addDraftAuthor(userId: string): void {
    // Every keystroke of a co-editor lands here: one write per person and draft is enough.
    if (this.#authorsWritten.has(userId)) return;
    this.#sql.exec('INSERT INTO draft_authors (user_id) VALUES (?) ON CONFLICT(user_id) DO NOTHING', userId);
    this.#authorsWritten.add(userId);
  }

  clearDraftAuthors(): void {
    this.#sql.exec('DELETE FROM draft_authors');
    this.#authorsWritten.clear();
  }

  /** Who may not approve the current draft: the session's creator, whoever sent a message, whoever staged or co-edited it. */
  authors(createdBy: string): Set<string> {
    const ids = new Set([createdBy]);
    for (const row of this.#sql.exec<{ user_id: string }>('SELECT DISTINCT user_id FROM turns').toArray()) ids.add(row.user_id);
    for (const row of this.#sql.exec<{ user_id: string }>('SELECT user_id FROM draft_authors').toArray()) ids.add(row.user_id);
    return ids;
  }
}
