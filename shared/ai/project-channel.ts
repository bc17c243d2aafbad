/**
 * The messages the Worker sends to a project's live session objects (worker/live/project-channel.ts
 * delivers them; the session object's `projectMessage` RPC receives them). One small union, so
 * later messages (a new baseline revision, a cache to drop) join it without a new channel.
 */
import type { Role } from '../api/common.ts';

/**
 * A person's role on the project changed: `role: null` when they were removed or left. `at` is
 * when the change was written to D1 (ms since epoch); it wins over any role read before it.
 */
export interface MembershipChanged {
  type: 'membershipChanged';
  userId: string;
  role: Role | null;
  at: number;
}

/**
 * A person signed out: only the sockets opened by that login close, or all of theirs when
 * `loginSessionId` is null (sign out everywhere). `at` is when D1 had the sign-out (ms since epoch,
 * noted after the write): an upgrade whose cookie was read at or before it is refused too, so one
 * racing the sign-out cannot open a socket after it.
 */
export interface SignedOut {
  type: 'signedOut';
  userId: string;
  loginSessionId: string | null;
  at: number;
}

/**
 * The stored package or the project's settings (review rule, domain profile) changed: a save in
 * the Builder, an apply, a revert, a settings update. Sessions drop the baseline they keep and
 * read it from D1 at their next use (durable-objects/ai-session/overlay/baseline-cache.ts).
 */
export interface BaselineMoved {
  type: 'baselineMoved';
}

/**
 * Something the session may keep about a person changed: their AI profile, name or language. The
 * session forgets the logins and profile it kept for them (their next message is checked against
 * D1 again), and a check read at or before `at` (ms since epoch, noted after the write) is not kept.
 */
export interface CallerChanged {
  type: 'callerChanged';
  userId: string;
  at: number;
}

/** The project was deleted: its sessions close every socket and answer as if they never existed. */
export interface ProjectDeleted {
  type: 'projectDeleted';
}

/** What the session's sockets act on (the hub); the others are the session's own. */
export type SocketChannelMessage = MembershipChanged | SignedOut;

export type ProjectChannelMessage = SocketChannelMessage | BaselineMoved | CallerChanged | ProjectDeleted;
