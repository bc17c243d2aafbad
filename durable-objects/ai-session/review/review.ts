/**
 * Shared review of the staged changes: comment threads anchored to an object key and a line range
 * (Yjs relative positions, review-anchor.ts), and approvals bound to a change-set version's content
 * hash. A thread follows edits to its file; when its lines are rewritten, or the file goes, it shows
 * as outdated. An approval is revoked as soon as the content it approved changes.
 */
import type * as Y from 'yjs';
import { newId } from '../../../shared/ids.ts';
import { resolveAnchor, type LineAnchor } from './review-anchor.ts';
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

interface AnchorRow extends Record<string, SqlStorageValue> {
  thread_id: string;
  line_end: number;
  rel_start: ArrayBuffer;
  rel_end: ArrayBuffer;
  quote: string;
}

/** Where threads are resolved: the overlay's document and each file's current text. */
export interface DraftTexts {
  doc: Y.Doc;
  textOf(objectKey: string): Y.Text | undefined;
  /** Lines of the file in the effective view (null: the file is gone), for threads kept before anchors existed. */
  lineCount(objectKey: string): number | null;
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

  /** Start a thread with its first comment; `anchor` pins it to a line range of the file's text. */
  addThread(actor: ReviewActor, objectKey: string, line: number | null, body: string, anchor: (LineAnchor & { lineEnd: number }) | null = null): { threadId: string; commentId: string } {
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
    if (anchor) {
      this.#sql.exec(
        'INSERT INTO thread_anchors (thread_id, line_end, rel_start, rel_end, quote) VALUES (?, ?, ?, ?, ?)',
        threadId,
        anchor.lineEnd,
        toBuffer(anchor.start),
        toBuffer(anchor.end),
        anchor.quote,
      );
    }
    const commentId = this.#insertComment(threadId, actor, body, at);
    return { threadId, commentId };
  }

  thread(threadId: string): Omit<ReviewThread, 'anchor' | 'comments' | 'lineEnd' | 'quote'> | undefined {
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

  /** Every thread with its comments, its lines as the draft is now, and whether they were rewritten. */
  threads(draft: DraftTexts): ReviewThread[] {
    const comments = this.#sql.exec<CommentRow>('SELECT * FROM comments ORDER BY created_at, id').toArray();
    const anchors = new Map(this.#sql.exec<AnchorRow>('SELECT * FROM thread_anchors').toArray().map((a) => [a.thread_id, a]));
    const addressed = new Map(
      this.#sql.exec<{ thread_id: string; version: number }>('SELECT thread_id, version FROM thread_addressed').toArray().map((a) => [a.thread_id, a.version]),
    );
    return this.#sql
      .exec<ThreadRow>('SELECT * FROM threads ORDER BY created_at, id')
      .toArray()
      .map((row) => {
        const stored = anchors.get(row.id);
        let place: Pick<ReviewThread, 'line' | 'lineEnd' | 'quote' | 'anchor'>;
        if (stored) {
          const anchor = { start: new Uint8Array(stored.rel_start), end: new Uint8Array(stored.rel_end), quote: stored.quote };
          const now = resolveAnchor(draft.doc, draft.textOf(row.object_key), anchor);
          place =
            now && !now.outdated
              ? { line: now.line, lineEnd: now.lineEnd, quote: stored.quote, anchor: 'current' }
              : { line: row.line, lineEnd: stored.line_end, quote: stored.quote, anchor: 'outdated' };
        } else {
          const lines = draft.lineCount(row.object_key);
          const anchored = lines !== null && (row.line === null || row.line <= lines);
          place = { line: row.line, lineEnd: row.line, quote: null, anchor: anchored ? 'current' : 'outdated' };
        }
        return {
          ...threadFromRow(row),
          ...place,
          comments: comments
            .filter((c) => c.thread_id === row.id)
            .map((c) => ({ id: c.id, authorId: c.author_id, authorName: c.author_name, body: c.body, createdAt: c.created_at })),
          addressedInVersion: addressed.get(row.id) ?? null,
        };
      });
  }

  /** An AI turn says it addressed these open threads in `version`; they stay open (review/address-comments.ts). */
  markAddressed(threadIds: readonly string[], version: number, turnId: string): void {
    const at = new Date().toISOString();
    for (const id of threadIds) {
      this.#sql.exec(
        `INSERT INTO thread_addressed (thread_id, version, turn_id, at) VALUES (?, ?, ?, ?)
         ON CONFLICT(thread_id) DO UPDATE SET version = excluded.version, turn_id = excluded.turn_id, at = excluded.at`,
        id,
        version,
        turnId,
        at,
      );
    }
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

function toBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.slice().buffer;
}

function threadFromRow(row: ThreadRow): Omit<ReviewThread, 'anchor' | 'comments' | 'lineEnd' | 'quote'> {
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
