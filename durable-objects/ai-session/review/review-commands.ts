/**
 * Shared review on the session (session.ts runs these one at a time): comment threads anchored to
 * an object key and line, resolving and reopening them, approving the latest validated version
 * (by its content hash) and withdrawing an approval. Every change is an event.
 */
import { ApiError } from '../../../shared/api-error.ts';
import { parseObjectKey } from '../../../shared/object-keys.ts';
import { userActor } from '../../../shared/ai/events.ts';
import type { CoEdit } from '../co-edit.ts';
import type { Actor } from '../../../shared/ai/session-rpc.ts';
import { requireEditor, staleOrMissing, type SessionHost } from '../session-host.ts';

const MAX_COMMENT_CHARS = 4000;

export interface CommentInput {
  objectKey: string;
  line: number | null;
  body: string;
  threadId?: string | undefined;
}

export class ReviewCommands {
  readonly #host: SessionHost;
  readonly #edits: CoEdit;

  constructor(host: SessionHost, edits: CoEdit) {
    this.#host = host;
    this.#edits = edits;
  }

  async comment(actor: Actor, input: CommentInput) {
    const host = this.#host;
    host.requireMeta();
    requireEditor(actor);
    const body = input.body.trim();
    if (!body || body.length > MAX_COMMENT_CHARS) {
      throw new ApiError('VALIDATION_FAILED', { message: `A comment needs between 1 and ${MAX_COMMENT_CHARS} characters.` });
    }
    let threadId = input.threadId;
    let objectKey = input.objectKey;
    let line = input.line;
    let commentId: string;
    if (threadId) {
      const thread = host.review.thread(threadId);
      if (!thread) throw new ApiError('AI_COMMENT_NOT_FOUND');
      objectKey = thread.objectKey;
      line = thread.line;
      commentId = host.review.reply(threadId, actor, body);
    } else {
      if (!parseObjectKey(objectKey)) {
        throw new ApiError('VALIDATION_FAILED', { message: `"${objectKey}" does not name a file of the package.` });
      }
      ({ threadId, commentId } = host.review.addThread(actor, objectKey, line, body));
    }
    host.emit({ type: 'comment.added', actor: userActor(actor), payload: { threadId, commentId, objectKey, line, body } });
    return { threadId, commentId };
  }

  async setThreadStatus(actor: Actor, threadId: string, status: 'open' | 'resolved') {
    const host = this.#host;
    host.requireMeta();
    requireEditor(actor);
    const thread = host.review.thread(threadId);
    if (!thread) throw new ApiError('AI_COMMENT_NOT_FOUND');
    if (thread.status !== status) {
      host.review.setThreadStatus(threadId, status, actor);
      host.emit({ type: status === 'resolved' ? 'thread.resolved' : 'thread.reopened', actor: userActor(actor), payload: { threadId } });
    }
    return { threadId, status };
  }

  async approve(actor: Actor, input: { changeSetId: string; contentHash: string }) {
    const host = this.#host;
    host.requireActive();
    requireEditor(actor);
    const latest = await this.#edits.flushEdits();
    if (!latest || latest.id !== input.changeSetId) staleOrMissing(host.versions, input.changeSetId, latest);
    if (latest.contentHash !== input.contentHash) {
      throw new ApiError('AI_CHANGESET_STALE', { message: 'The content you reviewed is not the content of this version.' });
    }
    if (latest.status !== 'validated') {
      throw new ApiError('AI_VALIDATION_FAILED', {
        message: 'Only a version that passed validation can be approved.',
        hints: ['Validate the staged changes and fix what it reports first.'],
      });
    }
    if (host.review.approve(actor, latest.version, latest.contentHash)) {
      host.emit({
        type: 'approval.added',
        actor: userActor(actor),
        payload: { version: latest.version, changeSetId: latest.id, contentHash: latest.contentHash },
      });
    }
    return { changeSetId: latest.id, approvals: host.review.approvals(latest.contentHash) };
  }

  async withdrawApproval(actor: Actor) {
    const host = this.#host;
    host.requireMeta();
    for (const revoked of host.review.revoke('withdrawn', { userId: actor.userId })) {
      host.emit({ type: 'approval.revoked', actor: userActor(actor), payload: { ...revoked, reason: 'withdrawn' } });
    }
    return { withdrawn: true };
  }
}
