/**
 * Attempt throttling for sign-in and registration (used by accounts.ts). Each attempt is counted
 * by one upsert that increments and returns, BEFORE any password work, so concurrent guesses each
 * get their own count: a fixed allowance goes through at once, then every further attempt must
 * wait a delay that doubles (base·2^(n−allowance), capped). An attempt that arrives while the key
 * is waiting is refused without being counted, so an attacker cannot push the owner's wait past
 * the delay already earned, and nobody is locked out for a whole window. An attempt that turns out
 * to be a successful sign-in is given back (returnAttempt), so the per-address limit counts
 * failures only.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { authThrottle } from '../db/schema.ts';
import { ApiError } from '../../shared/api-error.ts';
import { waitText } from '../../shared/i18n/wait-text.ts';

export interface ThrottlePolicy {
  /** Attempts that go through without any delay. */
  allowance: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A key with no counted attempt for this long starts again from zero. */
  resetAfterMs: number;
}

const MINUTE = 60_000;

/**
 * Per account: five tries, then 30 s, 1 min, 2 min … up to 15 min between guesses. A person who
 * mistypes five times waits half a minute; a guesser gets about four tries an hour.
 */
export const ACCOUNT_LOGIN_POLICY: ThrottlePolicy = { allowance: 5, baseDelayMs: 30_000, maxDelayMs: 15 * MINUTE, resetAfterMs: 60 * MINUTE };
/** Per client address, across all emails: generous for a shared office, fatal for credential stuffing. */
export const IP_LOGIN_POLICY: ThrottlePolicy = { allowance: 20, baseDelayMs: 30_000, maxDelayMs: 15 * MINUTE, resetAfterMs: 60 * MINUTE };
/** Per client address: a few accounts at once is normal, a flood is not. */
export const IP_REGISTER_POLICY: ThrottlePolicy = { allowance: 5, baseDelayMs: 60_000, maxDelayMs: 60 * MINUTE, resetAfterMs: 24 * 60 * MINUTE };

/**
 * Per person adding members: each add looks an email up, so it could list who has an account.
 * Thirty at once (a team joining) go through; then 10 s, 20 s … up to 10 min between adds.
 */
export const MEMBER_ADD_POLICY: ThrottlePolicy = { allowance: 30, baseDelayMs: 10_000, maxDelayMs: 10 * MINUTE, resetAfterMs: 60 * MINUTE };

/** A key's counter as it was just before an admitted attempt was counted (null: no row yet). */
export interface ThrottleState {
  attempts: number;
  lastAttemptAt: number;
  nextAllowedAt: number;
}

/** An admitted attempt: its count, when it was counted, and the counter it replaced (to give it back). */
export interface TakenAttempt {
  key: string;
  attempts: number;
  at: number;
  before: ThrottleState | null;
}

export type ThrottleDecision = ({ type: 'admitted' } & TakenAttempt) | { type: 'throttled'; retryAfterSeconds: number };

/** The delay owed after the n-th counted attempt, in JS (for a new key) … */
function delayAfter(policy: ThrottlePolicy, attempts: number): number {
  if (attempts < policy.allowance) return 0;
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(attempts - policy.allowance, 30));
}

/** Count one attempt on `key` at `now`, or refuse it (uncounted) while the key must wait. */
export async function takeAttempt(db: Db, key: string, policy: ThrottlePolicy, now = Date.now()): Promise<ThrottleDecision> {
  const stale = now - policy.resetAfterMs;
  // … and the same in SQL for an existing key (SET expressions see the row's old values).
  const attempts = sql`(CASE WHEN ${authThrottle.lastAttemptAt} < ${stale} THEN 1 ELSE ${authThrottle.attempts} + 1 END)`;
  // The shift is capped so base << n cannot overflow SQLite's 64-bit integers.
  const nextAllowedAt = sql`(CASE WHEN ${attempts} < ${policy.allowance} THEN 0 ELSE ${now} + MIN(${policy.maxDelayMs}, ${policy.baseDelayMs} << MIN(${attempts} - ${policy.allowance}, 30)) END)`;
  const firstDelay = delayAfter(policy, 1);
  const before = db
    .select({ attempts: authThrottle.attempts, lastAttemptAt: authThrottle.lastAttemptAt, nextAllowedAt: authThrottle.nextAllowedAt })
    .from(authThrottle)
    .where(eq(authThrottle.key, key));
  const upsert = db
    .insert(authThrottle)
    .values({ key, attempts: 1, lastAttemptAt: now, nextAllowedAt: firstDelay === 0 ? 0 : now + firstDelay })
    .onConflictDoUpdate({
      target: authThrottle.key,
      set: { attempts, nextAllowedAt, lastAttemptAt: now },
      // No row is updated, and none returned, while the key must still wait.
      setWhere: sql`${authThrottle.nextAllowedAt} <= ${now}`,
    })
    .returning({ attempts: authThrottle.attempts });
  // One batch is one transaction: `previous` is the row exactly as the upsert found it.
  const [previous, counted] = await db.batch([before, upsert]);
  if (counted[0]) return { type: 'admitted', key, attempts: counted[0].attempts, at: now, before: previous[0] ?? null };
  const row = await db.select({ nextAllowedAt: authThrottle.nextAllowedAt }).from(authThrottle).where(eq(authThrottle.key, key)).get();
  const waitMs = (row?.nextAllowedAt ?? now) - now;
  return { type: 'throttled', retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
}

/**
 * 429 with Retry-After, in words a person can act on ("Too many sign-in attempts. Try again in 30
 * seconds.", "… in 1 second."); a Chinese reader gets the wait in Chinese (localiseErrorBody).
 */
export function throttledError(what: string, retryAfterSeconds: number): ApiError {
  return new ApiError('RATE_LIMITED', {
    message: `Too many ${what}. Try again in ${waitText(retryAfterSeconds, 'en')}.`,
    headers: { 'retry-after': String(retryAfterSeconds) },
    extra: { retryAfterSeconds },
  });
}

/**
 * Give an admitted attempt back: the key's counter is as if the attempt had never been made (so a
 * successful sign-in neither adds to its address's count nor keeps that count alive), never lower.
 * When other attempts were counted on the key since, only this one is taken off: the count drops
 * by one and the wait becomes no longer than that count earns from now (never shorter than it is
 * owed, so a valid account cannot be used to shorten an address's delay).
 */
export async function returnAttempt(db: Db, policy: ThrottlePolicy, taken: TakenAttempt, now = Date.now()): Promise<void> {
  const untouched = and(eq(authThrottle.key, taken.key), eq(authThrottle.attempts, taken.attempts), eq(authThrottle.lastAttemptAt, taken.at));
  const undone = taken.before
    ? await db.update(authThrottle).set(taken.before).where(untouched).returning({ key: authThrottle.key }).all()
    : await db.delete(authThrottle).where(untouched).returning({ key: authThrottle.key }).all();
  if (undone.length > 0) return;
  const attempts = sql`MAX(${authThrottle.attempts} - 1, 0)`;
  await db
    .update(authThrottle)
    .set({
      attempts,
      nextAllowedAt: sql`(CASE WHEN ${attempts} < ${policy.allowance} THEN 0 ELSE MIN(${authThrottle.nextAllowedAt}, ${now} + MIN(${policy.maxDelayMs}, ${policy.baseDelayMs} << MIN(${attempts} - ${policy.allowance}, 30))) END)`,
    })
    .where(eq(authThrottle.key, taken.key));
}

/** Forget a key's attempts (a successful sign-in clears its account's counter, never its address's). */
export async function clearAttempts(db: Db, key: string): Promise<void> {
  await db.delete(authThrottle).where(eq(authThrottle.key, key));
}

/**
 * The client's address for throttling: only CF-Connecting-IP, which Cloudflare's edge sets and
 * overwrites on every request; X-Forwarded-For, True-Client-IP and the like are whatever the
 * client sent. Without it (tests and local development, no edge in front) there is no trustworthy
 * address, so per-address limits do not apply and only the per-account ones do.
 */
export function clientAddress(headers: Headers): string | null {
  const value = headers.get('cf-connecting-ip')?.trim();
  return value ? addressKey(value) : null;
}

/**
 * The part of an address one client controls: an IPv4 address whole, an IPv6 address by its /64
 * (one home or server is given a whole /64, so each of its 2^64 addresses must not get its own
 * allowance). An IPv4-mapped IPv6 address is its IPv4 address. Anything unparsable is kept as sent.
 */
export function addressKey(address: string): string {
  const value = address.toLowerCase();
  if (!value.includes(':')) return value;
  const mapped = /^(?:0{0,4}:){0,5}:?ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(value);
  if (mapped) return mapped[1]!;
  const [head, tail, more] = value.split('::');
  if (more !== undefined) return value;
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  if (groups.length !== 8 || !groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return value;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}
