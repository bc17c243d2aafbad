/**
 * Accounts and sign-in sessions: register, sign in (throttled), resolve a cookie to a user,
 * sign out. Returns values for expected outcomes; the routes turn them into responses.
 */
import { and, eq, lt } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { authSessions, loginThrottle, users } from '../db/schema.ts';
import { newId, randomToken } from '../ids.ts';
import { hashPassword, sha256Hex, verifyPassword } from './password.ts';
import { SESSION_TTL_SECONDS } from './cookies.ts';
import type { UserView } from '../../shared/api/auth.ts';

/** Five failed sign-ins per email within fifteen minutes lock that email for the rest of the window. */
export const LOGIN_MAX_FAILURES = 5;
export const LOGIN_WINDOW_MS = 15 * 60 * 1000;

export type RegisterResult = { type: 'registered'; user: UserView; token: string } | { type: 'email_taken' };

export type LoginResult =
  | { type: 'signed_in'; user: UserView; token: string }
  | { type: 'invalid_credentials' }
  | { type: 'throttled'; retryAfterSeconds: number };

export type SessionLookup =
  | { type: 'valid'; user: UserView; tokenHash: string }
  | { type: 'invalid' }
  | { type: 'expired' };

async function startSession(db: Db, userId: string): Promise<string> {
  const token = randomToken(32);
  const expiresAt = new Date(Date.now() + SESSION_TTL_SECONDS * 1000).toISOString();
  await db.insert(authSessions).values({ tokenHash: await sha256Hex(token), userId, expiresAt });
  return token;
}

export async function register(db: Db, input: { email: string; password: string; name: string }): Promise<RegisterResult> {
  const existing = await db.select({ id: users.id }).from(users).where(eq(users.email, input.email)).get();
  if (existing) return { type: 'email_taken' };
  const password = await hashPassword(input.password);
  const id = newId('usr');
  try {
    await db.insert(users).values({
      id,
      email: input.email,
      name: input.name,
      passwordHash: password.hash,
      passwordSalt: password.salt,
      passwordIterations: password.iterations,
    });
  } catch (error) {
    // Two registrations racing for one email: the unique index decides.
    if (String(error).includes('UNIQUE')) return { type: 'email_taken' };
    throw error;
  }
  const token = await startSession(db, id);
  return { type: 'registered', user: { id, email: input.email, name: input.name }, token };
}

async function throttleState(db: Db, key: string, now: number) {
  const row = await db.select().from(loginThrottle).where(eq(loginThrottle.key, key)).get();
  if (!row) return { failures: 0, windowStartedAt: now };
  const started = Date.parse(row.windowStartedAt);
  if (now - started > LOGIN_WINDOW_MS) return { failures: 0, windowStartedAt: now };
  return { failures: row.failures, windowStartedAt: started };
}

export async function login(db: Db, input: { email: string; password: string }): Promise<LoginResult> {
  const key = `email:${input.email}`;
  const now = Date.now();
  const throttle = await throttleState(db, key, now);
  if (throttle.failures >= LOGIN_MAX_FAILURES) {
    return { type: 'throttled', retryAfterSeconds: Math.ceil((throttle.windowStartedAt + LOGIN_WINDOW_MS - now) / 1000) };
  }
  const user = await db.select().from(users).where(eq(users.email, input.email)).get();
  const valid =
    user !== undefined &&
    (await verifyPassword(input.password, {
      hash: user.passwordHash,
      salt: user.passwordSalt,
      iterations: user.passwordIterations,
    }));
  if (!valid || !user) {
    const values = {
      key,
      failures: throttle.failures + 1,
      windowStartedAt: new Date(throttle.windowStartedAt).toISOString(),
    };
    await db
      .insert(loginThrottle)
      .values(values)
      .onConflictDoUpdate({ target: loginThrottle.key, set: { failures: values.failures, windowStartedAt: values.windowStartedAt } });
    return { type: 'invalid_credentials' };
  }
  await db.delete(loginThrottle).where(eq(loginThrottle.key, key));
  const token = await startSession(db, user.id);
  return { type: 'signed_in', user: { id: user.id, email: user.email, name: user.name }, token };
}

export async function lookupSession(db: Db, token: string): Promise<SessionLookup> {
  if (!/^[a-z2-7]{40,64}$/.test(token)) return { type: 'invalid' };
  const tokenHash = await sha256Hex(token);
  const row = await db
    .select({ expiresAt: authSessions.expiresAt, id: users.id, email: users.email, name: users.name })
    .from(authSessions)
    .innerJoin(users, eq(users.id, authSessions.userId))
    .where(eq(authSessions.tokenHash, tokenHash))
    .get();
  if (!row) return { type: 'invalid' };
  if (Date.parse(row.expiresAt) <= Date.now()) {
    await db.delete(authSessions).where(eq(authSessions.tokenHash, tokenHash));
    return { type: 'expired' };
  }
  return { type: 'valid', tokenHash, user: { id: row.id, email: row.email, name: row.name } };
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
