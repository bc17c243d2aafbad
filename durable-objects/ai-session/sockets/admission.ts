/**
 * Who may open a socket on this session (PROTOCOL.md "Connecting"): the identity the Worker set at
 * the upgrade (never the client's word), the session's own project, a sign-out told before the
 * upgrade reached the object, the role in force, and the caps on open sockets (SECURITY.md "Live
 * channel"): MAX_SOCKETS_PER_PERSON per person, MAX_SOCKETS_PER_SESSION for everyone. A refused
 * socket is closed at once with its code; it never joins presence nor costs anyone a broadcast.
 */
import { ERROR_CODES } from '../../../shared/errors.ts';
import { CLOSE_CODES, IDENTITY_HEADERS, MAX_SOCKETS_PER_PERSON, MAX_SOCKETS_PER_SESSION, PRESENCE_INTERVAL_MS, SocketIdentity } from '../../../shared/protocol.ts';
import type { Members } from './members.ts';
import type { SignOuts } from './sign-outs.ts';
import { send, type SessionConnection } from './socket-state.ts';

/** The caps and the presence interval in force; the defaults are shared/protocol-limits.ts (a test may lower them). */
export interface SocketLimits {
  perPerson: number;
  perSession: number;
  presenceIntervalMs: number;
}

export function defaultSocketLimits(): SocketLimits {
  return { perPerson: MAX_SOCKETS_PER_PERSON, perSession: MAX_SOCKETS_PER_SESSION, presenceIntervalMs: PRESENCE_INTERVAL_MS };
}

/** The `AI_SOCKETS_PER_PERSON` setting as a number: a positive whole number, else MAX_SOCKETS_PER_PERSON. */
export function socketsPerPerson(setting: string | undefined): number {
  const value = Number(setting);
  return Number.isInteger(value) && value > 0 ? value : MAX_SOCKETS_PER_PERSON;
}

export interface AdmissionDeps {
  /** The session's project, or null when the object holds no session. */
  projectId(): string | null;
  members: Members;
  signOuts: SignOuts;
  /** The open sockets (roster.ts), this one included. */
  connections(): Iterable<SessionConnection>;
  limits: SocketLimits;
}

export interface Admitted {
  you: SocketIdentity;
  loginSession: string;
  readAt: number;
}

/** The socket's person, or null when it was refused (and closed). */
export function admit(connection: SessionConnection, headers: Headers, deps: AdmissionDeps): Admitted | null {
  const identity = SocketIdentity.safeParse({
    userId: headers.get(IDENTITY_HEADERS.userId),
    name: headers.get(IDENTITY_HEADERS.name),
    role: headers.get(IDENTITY_HEADERS.role),
  });
  const loginSession = headers.get(IDENTITY_HEADERS.loginSession);
  const readAt = Number(headers.get(IDENTITY_HEADERS.roleReadAt) ?? Number.NaN);
  if (!identity.success || !loginSession || !Number.isFinite(readAt)) {
    connection.close(CLOSE_CODES.UNAUTHORIZED, 'UNAUTHORIZED');
    return null;
  }
  const projectId = deps.projectId();
  if (!projectId || headers.get(IDENTITY_HEADERS.projectId) !== projectId) {
    connection.close(CLOSE_CODES.NOT_FOUND, 'AI_SESSION_NOT_FOUND');
    return null;
  }
  // A sign-out this object was told of before the upgrade reached it (the cookie was read before).
  if (deps.signOuts.ended(identity.data.userId, loginSession, readAt)) {
    connection.close(CLOSE_CODES.SIGNED_OUT, 'SIGNED_OUT');
    return null;
  }
  // The role in force: the one read at the upgrade, unless the Worker told of a newer change.
  const role = deps.members.seed(identity.data.userId, identity.data.role, readAt);
  if (role === null) {
    connection.close(CLOSE_CODES.MEMBERSHIP_REVOKED, 'MEMBERSHIP_REVOKED');
    return null;
  }
  const over = overCap(connection, identity.data.userId, deps);
  if (over) {
    send(connection, { type: 'error', code: over, message: ERROR_CODES[over].message });
    connection.close(CLOSE_CODES.TOO_MANY_SOCKETS, over);
    return null;
  }
  return { you: { ...identity.data, role }, loginSession, readAt };
}

/** Which cap one more socket of `userId` would pass, if any: the person's own first (they can act on it). */
function overCap(connection: SessionConnection, userId: string, deps: AdmissionDeps): 'TOO_MANY_SOCKETS' | 'SESSION_FULL' | null {
  let mine = 0;
  let all = 0;
  for (const other of deps.connections()) {
    const state = other === connection ? null : other.state;
    // A socket being closed (revoked) no longer counts; one without a state was refused at its connect.
    if (!state || state.revoked) continue;
    all++;
    if (state.userId === userId) mine++;
  }
  if (mine >= deps.limits.perPerson) return 'TOO_MANY_SOCKETS';
  if (all >= deps.limits.perSession) return 'SESSION_FULL';
  return null;
}
