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
 * `loginSessionId` is null (sign out everywhere).
 */
export interface SignedOut {
  type: 'signedOut';
  userId: string;
  loginSessionId: string | null;
}

export type ProjectChannelMessage = MembershipChanged | SignedOut;
