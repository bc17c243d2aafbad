/**
 * Shared review of the staged changes: comment threads anchored to an object key and a line, and
 * approvals bound to a change-set version's content hash. A thread outlives re-stages while its
 * anchor still exists (the file is there and has that line); otherwise it shows as outdated. An
 * approval is revoked as soon as the content it approved changes.
 */
import { newId } from '../../../shared/ids.ts';
import type { Approval, ReviewComment, ReviewThread } from '../../../shared/api/ai-session-views.ts';

export type { Approval, ReviewComment, ReviewThread };

export interface ReviewActor {
  userId: string;
  name: string;
}

export interface RevokedApproval {
  version: number;
  userId: string;
}

interface ThreadRow extends Record<string, SqlStorageValue> {
  id: string;
  object_key: string;
  line: number | null;
  status: string;
  created_by: string;
  created_at: string;
  resolved_by: string | null;
  resolved_at: string | null;
}

interface CommentRow extends Record<string, SqlStorageValue> {
  id: string;
  thread_id: string;
  author_id: string;
  author_name: string;
  body: string;
  created_at: string;
}

interface ApprovalRow extends Record<string, SqlStorageValue> {
  version: number;
  user_id: string;
  user_name: string;
  content_hash: string;
  created_at: string;
}

export class ReviewStore {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** Start a thread with its first comment. */
  addThread(actor: ReviewActor, objectKey: string, line: number | null, body: string): { threadId: string; commentId: string } {
    const threadId = newId('thr');
    const at = new Date().toISOString();
    this.#sql.exec(
      `INSERT INTO threads (id, object_key, line, status, created_by, created_at) VALUES (?, ?, ?, 'open', ?, ?)`,
      threadId,
      objectKey,
      line,
      actor.userId,
      at,
    );
    const commentId = this.#insertComment(threadId, actor, body, at);
    return { threadId, commentId };
  }

  thread(threadId: string): Omit<ReviewThread, 'anchor' | 'comments'> | undefined {
    const row = this.#sql.exec<ThreadRow>('SELECT * FROM threads WHERE id = ?', threadId).toArray()[0];
    return row ? threadFromRow(row) : undefined;
  }

  reply(threadId: string, actor: ReviewActor, body: string): string {
    return this.#insertComment(threadId, actor, body, new Date().toISOString());
  }

  setThreadStatus(threadId: string, status: 'open' | 'resolved', actor: ReviewActor): void {
    const resolved = status === 'resolved';
    this.#sql.exec(
      'UPDATE threads SET status = ?, resolved_by = ?, resolved_at = ? WHERE id = ?',
      status,
      resolved ? actor.userId : null,
      resolved ? new Date().toISOString() : null,
      threadId,
    );
  }

  /** Every thread with its comments; `lineCount(key)` is the anchor's current line count (null: the file is gone). */
  threads(lineCount: (objectKey: string) => number | null): ReviewThread[] {
    const comments = this.#sql.exec<CommentRow>('SELECT * FROM comments ORDER BY created_at, id').toArray();
    return this.#sql
      .exec<ThreadRow>('SELECT * FROM threads ORDER BY created_at, id')
      .toArray()
      .map((row) => {
        const lines = lineCount(row.object_key);
        const anchored = lines !== null && (row.line === null || row.line <= lines);
        return {
          ...threadFromRow(row),
          anchor: anchored ? 'current' : 'outdated',
          comments: comments
            .filter((c) => c.thread_id === row.id)
            .map((c) => ({ id: c.id, authorId: c.author_id, authorName: c.author_name, body: c.body, createdAt: c.created_at })),
        };
      });
  }

  approve(actor: ReviewActor, version: number, contentHash: string): boolean {
    const existing = this.#sql
      .exec('SELECT 1 FROM approvals WHERE version = ? AND user_id = ? AND revoked_at IS NULL', version, actor.userId)
      .toArray();
    if (existing.length > 0) return false;
    this.#sql.exec(
      `INSERT INTO approvals (version, user_id, user_name, content_hash, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(version, user_id) DO UPDATE SET content_hash = excluded.content_hash, created_at = excluded.created_at,
         revoked_at = NULL, revoke_reason = NULL`,
      version,
      actor.userId,
      actor.name,
      contentHash,
      new Date().toISOString(),
    );
    return true;
  }

  /** Active approvals of the given content hash. */
  approvals(contentHash?: string): Approval[] {
    const rows =
      contentHash === undefined
        ? this.#sql.exec<ApprovalRow>('SELECT * FROM approvals WHERE revoked_at IS NULL ORDER BY created_at').toArray()
        : this.#sql
            .exec<ApprovalRow>('SELECT * FROM approvals WHERE revoked_at IS NULL AND content_hash = ? ORDER BY created_at', contentHash)
            .toArray();
    return rows.map((r) => ({ version: r.version, userId: r.user_id, userName: r.user_name, contentHash: r.content_hash, createdAt: r.created_at }));
  }

  /** Revoke active approvals (all of them, or one person's), returning what was revoked. */
  revoke(reason: string, filter: { exceptHash?: string; userId?: string } = {}): RevokedApproval[] {
    const active = this.approvals().filter(
      (a) => (filter.exceptHash === undefined || a.contentHash !== filter.exceptHash) && (filter.userId === undefined || a.userId === filter.userId),
    );
    const at = new Date().toISOString();
    for (const a of active) {
      this.#sql.exec('UPDATE approvals SET revoked_at = ?, revoke_reason = ? WHERE version = ? AND user_id = ?', at, reason, a.version, a.userId);
    }
    return active.map((a) => ({ version: a.version, userId: a.userId }));
  }

  #insertComment(threadId: string, actor: ReviewActor, body: string, at: string): string {
    const id = newId('cmt');
    this.#sql.exec(
      'INSERT INTO comments (id, thread_id, author_id, author_name, body, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      id,
      threadId,
      actor.userId,
      actor.name,
      body,
      at,
    );
    return id;
  }
}

function threadFromRow(row: ThreadRow): Omit<ReviewThread, 'anchor' | 'comments'> {
  return {
    id: row.id,
    objectKey: row.object_key,
    line: row.line,
    status: row.status === 'resolved' ? 'resolved' : 'open',
    createdBy: row.created_by,
    createdAt: row.created_at,
    resolvedBy: row.resolved_by,
    resolvedAt: row.resolved_at,
  };
}
