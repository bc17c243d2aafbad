/**
 * The review rules of a session (issue 15): who may comment, resolve, approve, request changes,
 * dismiss and override; line comments anchored to the staged draft; @mentions; and the gate that
 * Apply and the Workbench share (shared/ai/review-gate.ts). review-commands.ts runs these (one at a
 * time, through SessionCore's queue) and hands over what they need; the stores (review.ts,
 * change-requests.ts) only keep rows.
 */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../../../worker/db/client.ts';
import { aiAuditEvents, projectMembers, users } from '../../../worker/db/schema.ts';
import { ApiError } from '../../../shared/api-error.ts';
import { newId, nowIso } from '../../../shared/ids.ts';
import { atLeast } from '../../../shared/api/common.ts';
import type { ApprovalOverride, ChangeRequest } from '../../../shared/api/ai-session-views.ts';
import type { AuditEventType } from '../../../shared/ai/audit.ts';
import { userActor, type NewEvent, type SessionEvent } from '../../../shared/ai/events.ts';
import { mentionedMembers } from '../../../shared/ai/mentions.ts';
import { reviewBlock, type ReviewBlock } from '../../../shared/ai/review-gate.ts';
import type { SessionMeta } from '../../../shared/ai/session.ts';
import { parseObjectKey } from '../../../shared/object-keys.ts';
import { logError } from '../../../shared/errors-report.ts';
import type { ChangeRequestStore } from './change-requests.ts';
import type { Actor, CommentRequest } from '../../../shared/ai/session-rpc.ts';
import type { OverlayDoc } from '../overlay/overlay-doc.ts';
import { anchorLines, linesOf } from './review-anchor.ts';
import { recordMentions } from './mention-notices.ts';
import type { ReviewStore } from './review.ts';
import type { CommentRate } from './comment-rate.ts';
import type { ChangeVersion } from '../overlay/versions.ts';

/** A comment's (or a request for changes') body, counted in UTF-8 bytes: 16 KiB. */
export const MAX_COMMENT_BYTES = 16 * 1024;
const MAX_REASON_CHARS = 1000;

export interface ReviewDeps {
  db: Db;
  review: ReviewStore;
  requests: ChangeRequestStore;
  overlay: OverlayDoc;
  emit: (event: NewEvent) => SessionEvent;
  meta: () => SessionMeta;
  /** How fast each person may comment (comment-rate.ts). */
  commentRate: CommentRate;
}

export interface ReviewGate {
  counted: number;
  authors: Set<string>;
  override: ApprovalOverride | null;
  requests: ChangeRequest[];
  block: ReviewBlock | null;
}

/** What a comment carries: the RPC contract's request (shared/ai/session-rpc.ts). */
export type CommentInput = CommentRequest;

function requireRole(actor: Actor, needed: 'editor' | 'owner', what: string): void {
  if (!atLeast(actor.role, needed)) {
    throw new ApiError('FORBIDDEN', {
      message: `${what} needs the ${needed} role on the project; you are a ${actor.role}.`,
      hints: ['Ask a project owner to change your role.'],
    });
  }
}

/** The trimmed text, refused when empty or over the byte limit. */
function checkedText(body: string, what: string): string {
  const text = body.trim();
  if (!text) throw new ApiError('VALIDATION_FAILED', { message: `${what} cannot be empty.` });
  const bytes = new TextEncoder().encode(text).byteLength;
  if (bytes > MAX_COMMENT_BYTES) {
    throw new ApiError('AI_COMMENT_TOO_LARGE', {
      message: `${what} can be at most ${MAX_COMMENT_BYTES} bytes (16 KiB); this one is ${bytes} bytes.`,
      hints: ['Shorten it, or link to a longer text.'],
      extra: { maxBytes: MAX_COMMENT_BYTES, bytes },
    });
  }
  return text;
}

function checkedReason(reason: string): string {
  const text = reason.trim();
  if (!text || text.length > MAX_REASON_CHARS) {
    throw new ApiError('VALIDATION_FAILED', { message: `Give a reason of 1 to ${MAX_REASON_CHARS} characters; it goes into the audit log.` });
  }
  return text;
}

export class ReviewService {
  readonly #deps: ReviewDeps;

  constructor(deps: ReviewDeps) {
    this.#deps = deps;
  }

  /** The gate for `version` (null: nothing staged) under the project's rule. */
  gate(version: ChangeVersion | null, required: number): ReviewGate {
    const { review, requests } = this.#deps;
    const authors = requests.authors(this.#deps.meta().createdBy);
    const counted = version ? review.approvals(version.contentHash).filter((a) => !authors.has(a.userId)).length : 0;
    const override = version ? requests.override(version.contentHash) : null;
    const open = requests.open();
    return { counted, authors, override, requests: open, block: reviewBlock({ required, counted, openRequests: open, overridden: override !== null }) };
  }

  // ------------------------------------------------------------------ comments

  /** Start a thread on a line range of a staged file (or on the whole file), or reply to one. Viewers may. */
  async comment(actor: Actor, input: CommentInput): Promise<{ threadId: string; commentId: string }> {
    const { review, overlay } = this.#deps;
    const body = checkedText(input.body, 'A comment');
    this.#deps.commentRate.take(actor.userId);
    let threadId = input.threadId;
    let objectKey = input.objectKey;
    let line = input.line;
    let lineEnd = line === null ? null : (input.lineEnd ?? line);
    let commentId: string;
    if (threadId) {
      const thread = review.thread(threadId);
      if (!thread) throw new ApiError('AI_COMMENT_NOT_FOUND');
      ({ objectKey, line } = thread);
      lineEnd = null;
      commentId = review.reply(threadId, actor, body);
    } else {
      if (!parseObjectKey(objectKey)) throw new ApiError('VALIDATION_FAILED', { message: `"${objectKey}" does not name a file of the package.` });
      // The live text only (undefined when not staged or deleted): no copy of a large draft as a string.
      const text = overlay.textOf(objectKey);
      if (!text) {
        throw new ApiError('AI_COMMENT_LINE_GONE', {
          message: `${objectKey} is not among the staged changes any more, so it cannot be commented on.`,
          hints: ['Reload the changes and comment on a file that is staged.'],
        });
      }
      let anchor = null;
      if (line !== null && lineEnd !== null) {
        if (lineEnd < line) throw new ApiError('VALIDATION_FAILED', { message: 'lineEnd must not come before line.' });
        anchor = anchorLines(text, line, lineEnd);
        if (!anchor) {
          const count = linesOf(text.toString()).length;
          throw new ApiError('AI_COMMENT_LINE_GONE', {
            message: `Line ${lineEnd} of ${objectKey} is not in the staged draft any more: it has ${count} line${count === 1 ? '' : 's'} now.`,
            hints: ['Reload the changes and comment on the lines as they are now.'],
            extra: { lines: count },
          });
        }
      }
      ({ threadId, commentId } = review.addThread(actor, objectKey, line, body, anchor && lineEnd !== null ? { ...anchor, lineEnd } : null));
    }
    this.#deps.emit({ type: 'comment.added', actor: userActor(actor), payload: { threadId, commentId, objectKey, line, lineEnd, body } });
    const mentioned = await this.#mentioned(body, actor.userId);
    for (const member of mentioned) {
      this.#deps.emit({ type: 'mention', actor: userActor(actor), payload: { userId: member.userId, threadId, commentId, objectKey, line } });
    }
    // Kept in D1 for each person's mention list; best effort: the comment is already stored.
    const { projectId, sessionId } = this.#deps.meta();
    const notice = { projectId, sessionId, threadId, commentId, author: { userId: actor.userId, name: actor.name }, objectKey, line, body };
    await recordMentions(this.#deps.db, notice, mentioned.map((m) => m.userId));
    return { threadId, commentId };
  }

  /** Resolve or reopen: the thread's author, editors and owners. */
  setThreadStatus(actor: Actor, threadId: string, status: 'open' | 'resolved'): { threadId: string; status: 'open' | 'resolved' } {
    const thread = this.#deps.review.thread(threadId);
    if (!thread) throw new ApiError('AI_COMMENT_NOT_FOUND');
    if (thread.createdBy !== actor.userId && !atLeast(actor.role, 'editor')) {
      throw new ApiError('FORBIDDEN', {
        message: 'Only the person who started this thread, editors and owners can resolve or reopen it.',
        hints: ['Reply to the thread instead.'],
      });
    }
    if (thread.status !== status) {
      this.#deps.review.setThreadStatus(threadId, status, actor);
      this.#deps.emit({ type: status === 'resolved' ? 'thread.resolved' : 'thread.reopened', actor: userActor(actor), payload: { threadId } });
    }
    return { threadId, status };
  }

  // ------------------------------------------------------------------ approvals and requests for changes

  /** Refuse the people who asked for or edited the change (checked after the version is known to be current). */
  requireReviewer(actor: Actor): void {
    requireRole(actor, 'editor', 'Approving');
    const meta = this.#deps.meta();
    if (!this.#deps.requests.authors(meta.createdBy).has(actor.userId)) return;
    const why =
      meta.createdBy === actor.userId
        ? 'You started this session, so you asked for this change'
        : 'You asked for this change or edited it';
    throw new ApiError('AI_APPROVAL_NOT_ALLOWED', {
      message: `${why}; someone else has to approve it.`,
      hints: ['Ask another editor or owner of the project to review it.'],
    });
  }

  /** Record an approval of `version` (already checked: current, validated, reviewer allowed); it closes the approver's requests for changes. */
  approve(actor: Actor, version: ChangeVersion): void {
    const { review, requests } = this.#deps;
    if (review.approve(actor, version.version, version.contentHash)) {
      this.#deps.emit({ type: 'approval.added', actor: userActor(actor), payload: { version: version.version, changeSetId: version.id, contentHash: version.contentHash } });
    }
    for (const request of requests.open(actor.userId)) this.#close(actor, request, 'approved', null);
  }

  requestChanges(actor: Actor, version: ChangeVersion, body: string): { requestId: string } {
    requireRole(actor, 'editor', 'Requesting changes');
    const text = checkedText(body, 'A request for changes');
    const { review, requests } = this.#deps;
    for (const revoked of review.revoke('withdrawn', { userId: actor.userId })) {
      this.#deps.emit({ type: 'approval.revoked', actor: userActor(actor), payload: { ...revoked, reason: 'withdrawn' } });
    }
    // One open request per person: a new one replaces the old.
    for (const request of requests.open(actor.userId)) this.#close(actor, request, 'withdrawn', null);
    const requestId = requests.add(actor, version.version, text);
    this.#deps.emit({ type: 'changes.requested', actor: userActor(actor), payload: { requestId, version: version.version, changeSetId: version.id, body: text } });
    return { requestId };
  }

  withdrawRequest(actor: Actor): { withdrawn: number } {
    const open = this.#deps.requests.open(actor.userId);
    if (open.length === 0) throw new ApiError('AI_CHANGE_REQUEST_NOT_FOUND', { message: 'You have no open request for changes in this session.' });
    for (const request of open) this.#close(actor, request, 'withdrawn', null);
    return { withdrawn: open.length };
  }

  /** An owner dismisses someone's request for changes, with a reason that goes into the audit log. */
  async dismissRequest(actor: Actor, requestId: string, reason: string): Promise<{ requestId: string; dismissed: true }> {
    requireRole(actor, 'owner', 'Dismissing a request for changes');
    const note = checkedReason(reason);
    const request = this.#deps.requests.open().find((r) => r.id === requestId);
    if (!request) throw new ApiError('AI_CHANGE_REQUEST_NOT_FOUND');
    await this.#audit(actor.userId, 'ai.review.dismissed', { requestId, requestedBy: request.userId, version: request.version, reason: note });
    this.#close(actor, request, 'dismissed', note);
    return { requestId, dismissed: true };
  }

  /** An owner lets this version apply without the required approvals; the reason goes into the audit log. */
  async override(actor: Actor, version: ChangeVersion, required: number, reason: string): Promise<ApprovalOverride> {
    requireRole(actor, 'owner', 'Overriding the required approvals');
    const note = checkedReason(reason);
    const counted = this.gate(version, required).counted;
    await this.#audit(actor.userId, 'ai.approvals.overridden', { changeSetId: version.id, version: version.version, required, counted, reason: note });
    const override: ApprovalOverride = { version: version.version, userId: actor.userId, userName: actor.name, reason: note, createdAt: nowIso() };
    this.#deps.requests.setOverride(version.contentHash, override);
    this.#deps.emit({ type: 'approvals.overridden', actor: userActor(actor), payload: { version: version.version, changeSetId: version.id, reason: note } });
    return override;
  }

  // ------------------------------------------------------------------ internals

  #close(actor: Actor, request: ChangeRequest, reason: 'approved' | 'withdrawn' | 'dismissed', note: string | null): void {
    this.#deps.requests.close(request.id, reason, actor.userId, note);
    this.#deps.emit({ type: 'changes.request.closed', actor: userActor(actor), payload: { requestId: request.id, userId: request.userId, reason, note } });
  }

  /** D1 first: when the audit row cannot be written, nothing is decided. */
  async #audit(userId: string, eventType: AuditEventType, payload: Record<string, unknown>): Promise<void> {
    const meta = this.#deps.meta();
    await this.#deps.db.insert(aiAuditEvents).values({
      id: newId('aud'),
      projectId: meta.projectId,
      sessionId: meta.sessionId,
      userId,
      eventType,
      payloadJson: JSON.stringify(payload),
      createdAt: nowIso(),
    });
  }

  /** Project members the body @mentions, other than its author (best effort: a failed read mentions nobody). */
  async #mentioned(body: string, authorId: string): Promise<Array<{ userId: string }>> {
    if (!body.includes('@')) return [];
    try {
      const members = await this.#deps.db
        .select({ userId: users.id, name: users.name, email: users.email })
        .from(projectMembers)
        .innerJoin(users, eq(users.id, projectMembers.userId))
        .where(and(eq(projectMembers.projectId, this.#deps.meta().projectId)));
      return mentionedMembers(body, members).filter((m) => m.userId !== authorId);
    } catch (error) {
      logError('ai session: could not read members for mentions', error, { sessionId: this.#deps.meta().sessionId });
      return [];
    }
  }
}
