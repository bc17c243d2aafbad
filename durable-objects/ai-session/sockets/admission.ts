/**
 * Who may open a socket on this session (PROTOCOL.md "Connecting"): the identity the Worker set at
 * the upgrade (never the client's word), the session's own project, a sign-out told before the
 * upgrade reached the object, the role in force, and the caps on open sockets (SECURITY.md "Live
 * channel"): MAX_SOCKETS_PER_PERSON per person, MAX_SOCKETS_PER_SESSION for everyone. A refused
 * socket is closed at once with its code; it never joins presence nor costs anyone a broadcast.
 *
 * A person at their own cap is not refused: their socket that gave the oldest sign of life (its
 * last frame, its last keep-alive ping, else its connect) is closed instead, with 4432 and the
 * reason SOCKET_REPLACED. A socket whose client died without a close (a laptop slept, the network
 * changed) keeps its place until the platform notices, so a person reconnecting after a few network
 * flaps would otherwise be locked out by their own dead sockets. Evicting only sockets silent past
 * a threshold was weighed and not chosen: a live tab that only watches sends nothing (it pings only
 * when it hears nothing, and a busy session talks to it all the time), so silence cannot tell it
 * from a dead one, and a flap's dead socket is younger than any useful threshold. No reconnect war:
 * 4432 is final in the app (and in every client that knew 4432 before this reason existed), so
 * the replaced tab says why and waits for its person instead of reconnecting and replacing the next.
 * The session's cap stays a refusal: the sockets there are other people's. A socket's last frame is
 * known to the millisecond while the object is awake, and to within HEARD_STEP_MS from its
 * attachment after hibernation (the frame times in memory are gone then).
 */
import { ERROR_CODES } from '../../../shared/errors.ts';
import { CLOSE_CODES, IDENTITY_HEADERS, MAX_SOCKETS_PER_PERSON, MAX_SOCKETS_PER_SESSION, PRESENCE_INTERVAL_MS, SocketIdentity } from '../../../shared/protocol.ts';
import type { Members } from './members.ts';
import type { SignOuts } from './sign-outs.ts';
import { send, type SessionConnection } from './socket-state.ts';

/**
 * A socket's last frame is kept in its attachment (`heardAt`, socket-state.ts) when it is at least
 * this much newer than the one kept: the attachment is written at most once per step per socket, and
 * after hibernation the choice of the quietest socket is still right to within this step.
 */
export const HEARD_STEP_MS = 10_000;

/** The caps, the presence interval and the `heardAt` step in force; the defaults are shared/protocol-limits.ts and HEARD_STEP_MS (a test may lower them). */
export interface SocketLimits {
  perPerson: number;
  perSession: number;
  presenceIntervalMs: number;
  heardStepMs: number;
}

export function defaultSocketLimits(): SocketLimits {
  return { perPerson: MAX_SOCKETS_PER_PERSON, perSession: MAX_SOCKETS_PER_SESSION, presenceIntervalMs: PRESENCE_INTERVAL_MS, heardStepMs: HEARD_STEP_MS };
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
  /** The socket's latest sign of life besides its connect (ms: its last frame — in memory, else its attachment's `heardAt` — or keep-alive ping), null when none is known. */
  heardAt(connection: SessionConnection): number | null;
  /** Close `connection` for the newer socket of its person (SOCKET_REPLACED), telling it why. */
  replace(connection: SessionConnection): void;
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
  const { mine, all } = openSockets(connection, identity.data.userId, deps);
  // The person's own cap first: one of their sockets makes room (a place in the session's cap too).
  if (mine.length >= deps.limits.perPerson) deps.replace(quietest(mine, deps));
  else if (all >= deps.limits.perSession) {
    send(connection, { type: 'error', code: 'SESSION_FULL', message: ERROR_CODES.SESSION_FULL.message });
    connection.close(CLOSE_CODES.TOO_MANY_SOCKETS, 'SESSION_FULL');
    return null;
  }
  return { you: { ...identity.data, role }, loginSession, readAt };
}

/** The open sockets of `userId` and how many are open in all, `connection` aside. */
function openSockets(connection: SessionConnection, userId: string, deps: AdmissionDeps): { mine: SessionConnection[]; all: number } {
  const mine: SessionConnection[] = [];
  let all = 0;
  for (const other of deps.connections()) {
    const state = other === connection ? null : other.state;
    // A socket being closed (revoked) no longer counts; one without a state was refused at its connect.
    if (!state || state.revoked) continue;
    all++;
    if (state.userId === userId) mine.push(other);
  }
  return { mine, all };
}

/** The socket whose latest sign of life is the oldest (the first such, the oldest, on a tie). */
function quietest(sockets: SessionConnection[], deps: AdmissionDeps): SessionConnection {
  const lastSign = (c: SessionConnection) => Math.max(Date.parse(c.state!.since), deps.heardAt(c) ?? 0);
  return sockets.reduce((quiet, c) => (lastSign(c) < lastSign(quiet) ? c : quiet));
}
