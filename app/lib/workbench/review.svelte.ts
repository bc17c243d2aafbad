/**
 * The review side of the workbench (issue 15, line comments and approvals): threads by file, the
 * approval state of the version the diff shows, the actions (comment, reply, resolve, approve,
 * request changes, withdraw, dismiss, override), @mentions of the person here, and who applied.
 * It rides on a `WorkbenchSession`: its events and its refreshed view; nothing here touches the DOM.
 */
import { atLeast } from '../../../shared/api/roles.ts';
import type { ReviewThread } from '../../../shared/api/ai-session-views.ts';
import type { SessionEvent } from '../../../shared/ai/events.ts';
import type { ErrorBody } from '../../../shared/errors.ts';
import { t } from '../i18n/i18n.svelte.ts';
import '../i18n/workbench-words.ts';
import { isUnreachable } from '../local-error.ts';
import { reviewApi, type NewComment, type ReviewApi, type ReviewedVersion } from './review-api.ts';
import type { WorkbenchSession } from './session.svelte.ts';

export interface MentionNotice {
  seq: number;
  by: string;
  objectKey: string;
  line: number | null;
  threadId: string;
}

export interface AppliedNotice {
  /** Null when the AI or the system applied it: the pane says "someone" in the reader's language. */
  by: string | null;
  version: number;
}

type Result = { ok: true } | { ok: false; error: ErrorBody };

/** How long a comment written while the socket is down waits for it to come back before it tries HTTP. */
export const COMMENT_WAIT_MS = 60_000;

export class WorkbenchReview {
  readonly #session: WorkbenchSession;
  readonly #api: ReviewApi;
  #mentions = $state.raw<MentionNotice[]>([]);
  #applied = $state.raw<AppliedNotice | null>(null);
  #error = $state.raw<ErrorBody | null>(null);
  #pending = $state(false);
  /** A comment is waiting for the connection to come back (written offline). */
  #waiting = $state(false);
  /** The socket's open count when the error was made: "could not reach the server" is stale after a reopen. */
  #errorOpens = 0;
  readonly #stop: () => void;

  constructor(session: WorkbenchSession, api: ReviewApi = reviewApi) {
    this.#session = session;
    this.#api = api;
    this.#stop = session.onEvents((fresh) => this.#hear(fresh));
  }

  get mentions(): MentionNotice[] {
    return this.#mentions;
  }
  get applied(): AppliedNotice | null {
    return this.#applied;
  }
  get error(): ErrorBody | null {
    if (isUnreachable(this.#error) && this.#session.feed.opens > this.#errorOpens) return null;
    return this.#error;
  }
  get pending(): boolean {
    return this.#pending;
  }
  get waiting(): boolean {
    return this.#waiting;
  }

  readonly #me = $derived.by(() => this.#session.feed.you?.userId ?? this.#session.userId);
  readonly review = $derived.by(() => this.#session.view?.review ?? null);
  readonly threads = $derived.by<ReviewThread[]>(() => this.review?.threads ?? []);

  /** The version the diff shows (what a review is bound to), validated or not. */
  readonly shown = $derived.by<(ReviewedVersion & { version: number; validated: boolean }) | null>(() => {
    const suggestion = this.#session.view?.latestSuggestion;
    if (!suggestion || this.#session.changes?.changeSetId !== suggestion.changeSetId) return null;
    return { changeSetId: suggestion.changeSetId, contentHash: suggestion.contentHash, version: suggestion.version, validated: suggestion.status === 'validated' };
  });

  readonly isOwner = $derived.by(() => this.#session.liveRole === 'owner');
  readonly canReview = $derived.by(() => atLeast(this.#session.liveRole, 'editor') && this.#session.active);
  readonly isAuthor = $derived(this.#me !== null && (this.review?.authors ?? []).includes(this.#me));
  readonly approvedByMe = $derived((this.review?.approvals ?? []).some((a) => a.userId === this.#me));
  readonly myRequest = $derived((this.review?.changeRequests ?? []).find((r) => r.userId === this.#me) ?? null);

  /** Why this person cannot approve the shown version right now (null: they can). */
  readonly approveBlocked = $derived.by(() => {
    if (!this.canReview) return t('workbench.review.blocked.onlyEditors');
    if (!this.shown) return t('workbench.review.blocked.nothingReady');
    if (this.isAuthor) return t('workbench.review.blocked.author');
    if (!this.shown.validated) return t('workbench.review.blocked.notValidated');
    if (this.approvedByMe) return t('workbench.review.blocked.approved');
    return null;
  });

  readonly openThreads = $derived.by(() => this.threads.filter((t) => t.status === 'open'));
  /** "Address the open comments": editors and owners, with open threads, when the AI could take a message now. */
  readonly canAddress = $derived.by(() => this.canReview && this.#session.canSend && this.openThreads.length > 0);

  /** The open threads become the AI's next turn (quoted to it as data); the turn shows in the conversation. */
  addressComments(): Promise<boolean> {
    return this.#run((p, s) => this.#api.addressComments(p, s));
  }

  /** Resolving is for the thread's author, editors and owners. */
  canResolve(thread: ReviewThread): boolean {
    return thread.createdBy === this.#me || atLeast(this.#session.liveRole, 'editor');
  }

  comment(objectKey: string, line: number | null, body: string): Promise<boolean> {
    return this.#run((projectId, sessionId) => this.#sendComment(projectId, sessionId, { objectKey, line, body }));
  }

  reply(thread: ReviewThread, body: string): Promise<boolean> {
    return this.#run((p, s) => this.#sendComment(p, s, { objectKey: thread.objectKey, line: thread.line, body, threadId: thread.id }));
  }

  /** On the live socket when it is open and the comment fits a frame (no who-is-asking round trip), else over HTTP. */
  // Written while the socket is down (offline, or a dead socket being replaced): the comment waits,
  // said so in the pane, for the socket to open again, rather than failing or posting later unseen.
  async #sendComment(projectId: string, sessionId: string, comment: NewComment): Promise<Result> {
    const feed = this.#session.feed;
    if (!feed.connected && feed.status !== 'closed') {
      this.#waiting = true;
      try {
        await feed.whenOpen(COMMENT_WAIT_MS);
      } finally {
        this.#waiting = false;
      }
    }
    return feed.comment(comment) ?? this.#api.comment(projectId, sessionId, comment);
  }

  setThread(thread: ReviewThread, status: 'resolved' | 'open'): Promise<boolean> {
    return this.#run((p, s) => this.#api.setThread(p, s, thread.id, status));
  }

  /** Exactly what a review is bound to (the routes take no other field). */
  #bound(): ReviewedVersion | null {
    const shown = this.shown;
    return shown ? { changeSetId: shown.changeSetId, contentHash: shown.contentHash } : null;
  }

  approve(): Promise<boolean> {
    const bound = this.#bound();
    return bound ? this.#run((p, s) => this.#api.approve(p, s, bound)) : Promise.resolve(false);
  }

  requestChanges(body: string): Promise<boolean> {
    const bound = this.#bound();
    return bound ? this.#run((p, s) => this.#api.requestChanges(p, s, bound, body)) : Promise.resolve(false);
  }

  withdrawApproval(): Promise<boolean> {
    return this.#run((p, s) => this.#api.withdrawApproval(p, s));
  }

  withdrawRequest(): Promise<boolean> {
    return this.#run((p, s) => this.#api.withdrawRequest(p, s));
  }

  dismiss(requestId: string, reason: string): Promise<boolean> {
    return this.#run((p, s) => this.#api.dismissRequest(p, s, requestId, reason));
  }

  override(reason: string): Promise<boolean> {
    const bound = this.#bound();
    return bound ? this.#run((p, s) => this.#api.override(p, s, bound, reason)) : Promise.resolve(false);
  }

  markMentionsRead(): void {
    this.#mentions = [];
  }

  dispose(): void {
    this.#stop();
  }

  async #run(action: (projectId: string, sessionId: string) => Promise<Result>): Promise<boolean> {
    const sessionId = this.#session.sessionId;
    if (sessionId === null || this.#pending) return false;
    this.#pending = true;
    this.#error = null;
    try {
      const result = await action(this.#session.projectId, sessionId);
      if (!result.ok) {
        this.#error = result.error;
        this.#errorOpens = this.#session.feed.opens;
      }
      await this.#session.refresh();
      return result.ok;
    } finally {
      this.#pending = false;
    }
  }

  #hear(fresh: SessionEvent[]): void {
    const me = this.#me;
    const mine: MentionNotice[] = [];
    for (const event of fresh) {
      if (event.type === 'mention' && event.payload.userId === me && event.actor.kind === 'user') {
        mine.push({ seq: event.seq, by: event.actor.name, objectKey: event.payload.objectKey, line: event.payload.line, threadId: event.payload.threadId });
      }
      if (event.type === 'change.applied') {
        this.#applied = { by: event.actor.kind === 'user' ? event.actor.name : null, version: event.payload.version };
      }
      if (event.type === 'change.staged') this.#applied = null;
    }
    if (mine.length > 0) this.#mentions = [...this.#mentions, ...mine];
  }
}
