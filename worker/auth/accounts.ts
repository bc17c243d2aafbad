/**
 * Accounts and sign-in sessions: register, sign in (throttled), resolve a cookie to a user,
 * sign out. Returns values for expected outcomes; the routes turn them into responses.
 */
import { and, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { aiSessions, authSessions, projectMembers, users } from '../db/schema.ts';
import type { Role } from '../../shared/api/common.ts';
import { newId, randomToken } from '../../shared/ids.ts';
import { hashPassword, verifyPassword } from './password.ts';
import { sha256Hex } from '../../shared/hash.ts';
import { SESSION_TTL_SECONDS } from './cookies.ts';
import type { UserView } from '../../shared/api/auth.ts';
import { isLocale, type Locale } from '../../shared/i18n/locales.ts';
import { isUniqueViolation } from '../../shared/errors-report.ts';
import { ACCOUNT_LOGIN_POLICY, IP_LOGIN_POLICY, IP_REGISTER_POLICY, clearAttempts, returnAttempt, takeAttempt, type TakenAttempt } from './throttle.ts';
import { PreloadedReads, preloadScope as scopeOfPreloads, type Preload } from './preload.ts';

export type RegisterResult =
  | { type: 'registered'; user: UserView; token: string }
  | { type: 'email_taken' }
  | { type: 'throttled'; retryAfterSeconds: number };

export type LoginResult =
  | { type: 'signed_in'; user: UserView; token: string }
  | { type: 'invalid_credentials' }
  | { type: 'throttled'; retryAfterSeconds: number };

/** What the request's URL names, looked up in the same query as the cookie. */
export interface LookupScope {
  projectId: string | null;
  sessionId: string | null;
}

/** The caller's role on the scope's project (null: not a member) and whether the scope's session is in it. */
export interface ScopeAccess extends LookupScope {
  role: Role | null;
  sessionInProject: boolean;
  /** The ids of the project's active AI sessions when the request was authenticated (members only). */
  liveSessions: string[];
}

export type SessionLookup =
  /** `preloaded`: the rows of the route's preloads, kept only for a member of the scope's project. */
  | { type: 'valid'; user: UserView; tokenHash: string; access: ScopeAccess; preloaded: PreloadedReads | null; expiresAt: number }
  | { type: 'invalid' }
  | { type: 'expired' };

async function startSession(db: Db, userId: string): Promise<string> {
  const token = randomToken(32);
  const expiresAt = new Date(Date.now() + SESSION_TTL_SECONDS * 1000).toISOString();
  await db.insert(authSessions).values({ tokenHash: await sha256Hex(token), userId, expiresAt });
  return token;
}

/** `address` is the client's CF-Connecting-IP (null without Cloudflare's edge in front). */
export async function register(
  db: Db,
  input: { email: string; password: string; name: string; locale?: Locale },
  address: string | null,
): Promise<RegisterResult> {
  // Counted before any work, so a flood of registrations costs no password hashing.
  if (address !== null) {
    const decision = await takeAttempt(db, `register:ip:${address}`, IP_REGISTER_POLICY);
    if (decision.type === 'throttled') return decision;
  }
  const existing = await db.select({ id: users.id }).from(users).where(eq(users.email, input.email)).get();
  if (existing) return { type: 'email_taken' };
  const password = await hashPassword(input.password);
  const id = newId('usr');
  try {
    await db.insert(users).values({
      id,
      email: input.email,
      name: input.name,
      locale: input.locale ?? null,
      passwordHash: password.hash,
      passwordSalt: password.salt,
      passwordIterations: password.iterations,
    });
  } catch (error) {
    // Two registrations racing for one email: the unique index decides.
    if (isUniqueViolation(error, 'users.email')) return { type: 'email_taken' };
    throw error;
  }
  const token = await startSession(db, id);
  return { type: 'registered', user: { id, email: input.email, name: input.name, ...localeOf(input.locale) }, token };
}

/**
 * Sign in. Both counters (the client's address, then the account) are taken before the password
 * is checked, so concurrent guesses cannot all slip through one read of the counter; the password
 * work is the same whether or not the email has an account. A browser that signed in to this
 * account before (`device`: its trusted-device cookie, device-cookie.ts) counts on its own
 * counter instead of the account's, so guesses from elsewhere cannot keep the owner out of it.
 * A successful sign-in gives its address attempt back: the per-address limit counts failures.
 */
export async function login(db: Db, input: { email: string; password: string }, address: string | null, device: string | null = null): Promise<LoginResult> {
  let byAddress: TakenAttempt | null = null;
  if (address !== null) {
    const decision = await takeAttempt(db, `login:ip:${address}`, IP_LOGIN_POLICY);
    if (decision.type === 'throttled') return decision;
    byAddress = decision;
  }
  const accountKey = device ? `login:device:${device}` : `login:acct:${input.email}`;
  const byAccount = await takeAttempt(db, accountKey, ACCOUNT_LOGIN_POLICY);
  if (byAccount.type === 'throttled') return byAccount;
  const user = await db.select().from(users).where(eq(users.email, input.email)).get();
  const valid = await verifyPassword(
    input.password,
    user ? { hash: user.passwordHash, salt: user.passwordSalt, iterations: user.passwordIterations } : null,
  );
  if (!valid || !user) return { type: 'invalid_credentials' };
  await clearAttempts(db, accountKey);
  // The address counts failures only: this attempt is given back, not the address's earlier ones
  // (clearing them would let anyone with one valid account reset the address between guesses).
  if (byAddress) await returnAttempt(db, IP_LOGIN_POLICY, byAddress);
  const token = await startSession(db, user.id);
  return { type: 'signed_in', user: { id: user.id, email: user.email, name: user.name, ...localeOf(user.locale) }, token };
}

/** True when `token` could be a session cookie this product made (randomToken: base32, 40–64 characters). */
export function isSessionTokenShaped(token: string): boolean {
  return /^[a-z2-7]{40,64}$/.test(token);
}

/**
 * The cookie's login, its user, the user's role on the URL's project and whether the URL's session
 * belongs to that project: one query, so a request knows who is asking after one round trip. Nothing
 * is cached between requests, so sign-out and role changes apply to the very next one. The route's
 * `preloads` (preload.ts) go in the same batch; their rows are kept only for a member of the project.
 */
export async function lookupSession(
  db: Db,
  token: string,
  scope: LookupScope = { projectId: null, sessionId: null },
  preloads: readonly Preload<unknown>[] = [],
): Promise<SessionLookup> {
  if (!isSessionTokenShaped(token)) return { type: 'invalid' };
  const tokenHash = await sha256Hex(token);
  // An absent id joins on '' (no row has it), so the query keeps one shape.
  const projectId = scope.projectId ?? '';
  const query = db
    .select({
      expiresAt: authSessions.expiresAt,
      id: users.id,
      email: users.email,
      name: users.name,
      locale: users.locale,
      role: projectMembers.role,
      // Aliased: users.id has the same column name, and a batch (with preloads) answers rows as
      // objects by column name, where the second "id" would overwrite the first.
      sessionId: sql<string | null>`${aiSessions.id}`.as('url_session_id'),
      // The project's live sessions, read in the same query: a write that moves the project's
      // baseline tells them (middleware/baseline-moved.ts) without another round trip.
      liveSessions: sql<string | null>`(SELECT group_concat(live.id) FROM ai_sessions AS live WHERE live.project_id = ${projectId} AND live.status = 'active')`,
    })
    .from(authSessions)
    .innerJoin(users, eq(users.id, authSessions.userId))
    .leftJoin(projectMembers, and(eq(projectMembers.projectId, projectId), eq(projectMembers.userId, authSessions.userId)))
    .leftJoin(aiSessions, and(eq(aiSessions.id, scope.sessionId ?? ''), eq(aiSessions.projectId, projectId)))
    .where(eq(authSessions.tokenHash, tokenHash));
  // The route's reads ride in the same batch (one round trip, one consistent read); a request
  // without a project in its URL has none.
  const preloadScope = scope.projectId === null ? null : scopeOfPreloads(scope.projectId, scope.sessionId, tokenHash);
  const groups = preloadScope ? preloads.map((preload) => ({ preload, queries: preload.queries(db, preloadScope) })) : [];
  const preloadRows = new Map<Preload<unknown>, unknown[]>();
  let row: Awaited<typeof query>[number] | undefined;
  if (groups.length === 0) row = await query.get();
  else {
    const [auth, ...rest] = await db.batch([query, ...groups.flatMap((g) => g.queries)]);
    row = auth[0];
    let at = 0;
    for (const { preload, queries } of groups) {
      preloadRows.set(preload, rest.slice(at, (at += queries.length)));
    }
  }
  if (!row) return { type: 'invalid' };
  const expiresAt = Date.parse(row.expiresAt);
  if (expiresAt <= Date.now()) {
    await db.delete(authSessions).where(eq(authSessions.tokenHash, tokenHash));
    return { type: 'expired' };
  }
  return {
    type: 'valid',
    tokenHash,
    expiresAt,
    user: { id: row.id, email: row.email, name: row.name, ...localeOf(row.locale) },
    // A non-member's preloaded rows are dropped here: the route answers 404 without them.
    preloaded: preloadScope && row.role ? new PreloadedReads(preloadScope, preloadRows) : null,
    access: {
      ...scope,
      role: row.role ?? null,
      sessionInProject: row.sessionId !== null,
      // Only a member learns which sessions the project has.
      liveSessions: row.role && row.liveSessions ? row.liveSessions.split(',') : [],
    },
  };
}

export async function logout(db: Db, tokenHash: string, userId: string): Promise<void> {
  await db.delete(authSessions).where(eq(authSessions.tokenHash, tokenHash));
  // Opportunistic clean-up of this user's expired sessions.
  await db
    .delete(authSessions)
    .where(and(eq(authSessions.userId, userId), lt(authSessions.expiresAt, new Date().toISOString())));
}

/** Sign out everywhere: every login of this user ends (each device must sign in again). */
export async function logoutAll(db: Db, userId: string): Promise<void> {
  await db.delete(authSessions).where(eq(authSessions.userId, userId));
}

/** A stored language choice, when it is one the product speaks (an old or hand-edited value is ignored). */
function localeOf(value: string | null | undefined): { locale?: Locale } {
  return isLocale(value) ? { locale: value } : {};
}

/** Remembers the person's interface language on their account, for every device they sign in on. */
export async function setUserLocale(db: Db, userId: string, locale: Locale): Promise<void> {
  await db.update(users).set({ locale }).where(eq(users.id, userId));
}
