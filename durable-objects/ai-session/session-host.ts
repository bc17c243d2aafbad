/**
 * What the session's collaborators (co-edit.ts, change-commands.ts, review-commands.ts,
 * session-apply.ts, session-views.ts) share with SessionCore (session.ts): its storage, its
 * stores, the checks every command starts with, and the effective view.
 */
import type { Db } from '../../worker/db/client.ts';
import { ApiError } from '../../shared/api-error.ts';
import { atLeast } from '../../shared/api/common.ts';
import type { NewEvent, SessionEvent } from '../../shared/ai/events.ts';
import type { SessionMeta, SessionStatus } from '../../shared/ai/session.ts';
import type { ChangedFile } from '../../shared/ai/overlay.ts';
import type { ChangeValidation } from '../../shared/ai/validation-result.ts';
import type { ProjectContext } from './overlay/baseline.ts';
import type { EffectiveView } from './overlay/effective-view.ts';
import type { OverlayDoc } from './overlay/overlay-doc.ts';
import type { ReviewStore } from './review/review.ts';
import type { ChangeRequestStore } from './review/change-requests.ts';
import type { ReviewService } from './review/review-service.ts';
import type { ChangeVersion, VersionStore } from './overlay/versions.ts';
import type { TurnStore } from './loop/turn-store.ts';
import type { CheckpointStore } from './overlay/checkpoints.ts';
import type { Actor } from '../../shared/ai/session-rpc.ts';

export interface SessionDeps {
  sql: SqlStorage;
  db: Db;
  /** Store-then-broadcast; returns the stored event. */
  emit: (event: NewEvent) => SessionEvent;
  /** Ask for the alarm to run at `dueAt` (ms since epoch). */
  schedule: (name: string, dueAt: number) => void;
  /** Comments each person may send per minute (`AI_COMMENTS_PER_MINUTE`; review/comment-rate.ts). */
  commentsPerMinute?: number;
}

export interface SessionHost extends SessionDeps {
  overlay: OverlayDoc;
  versions: VersionStore;
  review: ReviewStore;
  /** Requests for changes, overrides and the draft's authors (review/change-requests.ts). */
  requests: ChangeRequestStore;
  /** The review rules and the gate Apply and the views share (review/review-service.ts). */
  reviewer: ReviewService;
  turns: TurnStore;
  /** The draft's checkpoint per version (overlay/checkpoints.ts). */
  checkpoints: CheckpointStore;
  status(): SessionStatus;
  /** True while an apply waits or runs. */
  applying(): boolean;
  /** The session's meta; AI_SESSION_NOT_FOUND before it was created. */
  requireMeta(): SessionMeta;
  /** The meta of a session still open to changes; AI_SESSION_CLOSED once applied or cancelled. */
  requireActive(): SessionMeta;
  context(): Promise<ProjectContext>;
  /** The stored package moved (this session's apply): drop the kept baseline. */
  baselineMoved(): void;
  view(): Promise<{ ctx: ProjectContext; view: EffectiveView }>;
  validateView(ctx: ProjectContext, view: EffectiveView, files: ChangedFile[]): ChangeValidation;
}

export function requireEditor(actor: Actor): void {
  if (!atLeast(actor.role, 'editor')) {
    throw new ApiError('FORBIDDEN', {
      message: `This needs the editor role on the project; you are a ${actor.role}.`,
      hints: ['Ask a project owner to change your role.'],
    });
  }
}

/**
 * AI_TURN_IN_PROGRESS for what a person asked while a turn is open (a message, an apply, a change of
 * the draft by hand), with the turn's id and status and the same hint wherever it is refused: wait
 * for the answer or stop the AI (a paused turn: raise the budget and resume it, or stop it), then
 * `retry` ("send your message again", "apply").
 */
export function turnInProgress(turn: { id: string; status: string }, retry: string, message?: string): ApiError {
  return new ApiError('AI_TURN_IN_PROGRESS', {
    ...(message ? { message } : {}),
    extra: { turnId: turn.id, turnStatus: turn.status },
    hints:
      turn.status === 'paused'
        ? [`The previous turn is paused by the token budget: raise the budget and resume it, or stop it; then ${retry}.`]
        : [`Wait for the answer, or stop the AI and ${retry}.`],
  });
}

/**
 * A person may change the draft by hand (undo, rebase, graph undo): an editor or owner, on an open
 * session, while neither an apply nor a turn runs — the AI's next write would otherwise land on a
 * draft it never saw. `what` finishes "…; <what> once it has finished (or stop it)".
 */
export function requireDraftIdle(host: Pick<SessionHost, 'requireActive' | 'applying' | 'turns'>, actor: Actor, what: string): void {
  requireEditor(actor);
  host.requireActive();
  if (host.applying()) throw new ApiError('AI_SESSION_BUSY');
  const turn = host.turns.open();
  if (turn) throw turnInProgress(turn, what, `The AI is still working on the draft; ${what} once it has finished (or stop it).`);
}

/** The version a request named is not the latest: missing, already applied, or stale. */
export function staleOrMissing(versions: VersionStore, changeSetId: string, latest: ChangeVersion | undefined): never {
  const named = versions.get(changeSetId);
  if (!named) throw new ApiError('AI_CHANGESET_NOT_FOUND');
  if (named.status === 'applied') throw new ApiError('AI_CHANGESET_ALREADY_APPLIED');
  throw new ApiError('AI_CHANGESET_STALE', {
    extra: { latestChangeSetId: latest?.id ?? null, latestVersion: latest?.version ?? null },
    hints: ['Open the latest version, review it, then apply that one.'],
  });
}
