/**
 * Shared review on the session (session.ts runs these one at a time): line comments (viewers may),
 * resolving and reopening threads, approving the latest validated version (by its content hash),
 * withdrawing an approval, requests for changes, an owner's dismiss and override. The rules are
 * review-service.ts's; this file checks the session and the version the reviewer saw first. A
 * session that is no longer active is read-only: every step here is refused (AI_SESSION_CLOSED).
 */
import { ApiError } from '../../../shared/api-error.ts';
import { userActor } from '../../../shared/ai/events.ts';
import type { CoEdit } from '../co-edit.ts';
import type { Actor, ReviewedVersion } from '../../../shared/ai/session-rpc.ts';
import type { ChangeVersion } from '../overlay/versions.ts';
import type { CommentInput } from './review-service.ts';
import { requireEditor, staleOrMissing, type SessionHost } from '../session-host.ts';

export type { CommentInput };

export class ReviewCommands {
  readonly #host: SessionHost;
  readonly #edits: CoEdit;

  constructor(host: SessionHost, edits: CoEdit) {
    this.#host = host;
    this.#edits = edits;
  }

  /** Start or answer a thread (viewers may: reviewers often are). Like every review step, refused once the session ended. */
  async comment(actor: Actor, input: CommentInput) {
    this.#host.requireActive();
    return this.#host.reviewer.comment(actor, input);
  }

  async setThreadStatus(actor: Actor, threadId: string, status: 'open' | 'resolved') {
    this.#host.requireActive();
    return this.#host.reviewer.setThreadStatus(actor, threadId, status);
  }

  /** The latest version, when it is the one the reviewer saw (same id and content hash). */
  async #reviewedVersion(input: ReviewedVersion): Promise<ChangeVersion> {
    const latest = await this.#edits.flushEdits();
    if (!latest || latest.id !== input.changeSetId) staleOrMissing(this.#host.versions, input.changeSetId, latest);
    if (latest.status === 'applied') throw new ApiError('AI_CHANGESET_ALREADY_APPLIED');
    if (latest.contentHash !== input.contentHash) {
      throw new ApiError('AI_CHANGESET_STALE', { message: 'The content you reviewed is not the content of this version.' });
    }
    return latest;
  }

  async approve(actor: Actor, input: ReviewedVersion) {
    const host = this.#host;
    host.requireActive();
    requireEditor(actor);
    const latest = await this.#reviewedVersion(input);
    host.reviewer.requireReviewer(actor);
    if (latest.status !== 'validated') {
      throw new ApiError('AI_VALIDATION_FAILED', {
        message: 'Only a version that passed validation can be approved.',
        hints: ['Validate the staged changes and fix what it reports first.'],
      });
    }
    host.reviewer.approve(actor, latest);
    return { changeSetId: latest.id, approvals: host.review.approvals(latest.contentHash) };
  }

  async withdrawApproval(actor: Actor) {
    const host = this.#host;
    host.requireActive();
    for (const revoked of host.review.revoke('withdrawn', { userId: actor.userId })) {
      host.emit({ type: 'approval.revoked', actor: userActor(actor), payload: { ...revoked, reason: 'withdrawn' } });
    }
    return { withdrawn: true };
  }

  /** "Request changes" on the version the reviewer saw: blocks Apply until approved, withdrawn or dismissed. */
  async requestChanges(actor: Actor, input: ReviewedVersion & { body: string }) {
    this.#host.requireActive();
    requireEditor(actor);
    const latest = await this.#reviewedVersion(input);
    return { changeSetId: latest.id, ...this.#host.reviewer.requestChanges(actor, latest, input.body) };
  }

  async withdrawChangeRequest(actor: Actor) {
    this.#host.requireActive();
    return this.#host.reviewer.withdrawRequest(actor);
  }

  async dismissChangeRequest(actor: Actor, requestId: string, reason: string) {
    this.#host.requireActive();
    return this.#host.reviewer.dismissRequest(actor, requestId, reason);
  }

  /** An owner lets the version they saw apply without the required approvals (recorded with a reason). */
  async overrideApprovals(actor: Actor, input: ReviewedVersion & { reason: string }) {
    const host = this.#host;
    host.requireActive();
    const latest = await this.#reviewedVersion(input);
    const ctx = await host.context();
    return host.reviewer.override(actor, latest, ctx.requiredApprovals, input.reason);
  }
}
