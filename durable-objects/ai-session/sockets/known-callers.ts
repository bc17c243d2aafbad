/**
 * The logins and AI profiles the Worker checked against D1 for requests to this session (a socket's
 * upgrade, the session's creation, a message). Logins are kept in the object's SQLite, so they
 * survive hibernation; profiles only in memory, since a sealed key is never written to the object's
 * storage (a woken object's first message reads the profile with the cookie again). A message from a login kept here is accepted without the Worker asking D1
 * (`sendKnownMessage`): the object is told of everything that would change the answer through the
 * project channel. A sign-out (sign-outs.ts) and a role change (members.ts) are checked at use; a
 * change to the person (their AI profile, name or language: `callerChanged`) makes the object forget
 * what it kept of them, and refuse to keep a check read at or before that change.
 *
 * Bounded by age too: a login or profile is used for at most KNOWN_LOGIN_MAX_AGE_MS after the Worker read it,
 * so a channel message that never arrived (the object could not be reached) is outlived by D1's
 * answer within minutes. The object is the tables' only writer, so they are read once per wake.
 */
import type { Locale } from '../../../shared/i18n/locales.ts';
import { isLocale } from '../../../shared/i18n/locales.ts';
import type { SealedLlmProfile } from '../../../shared/llm/types.ts';
import type { VerifiedCaller } from '../../../shared/ai/session-rpc.ts';

/** How long after the Worker's read a kept login is used; after it, the next message asks D1 again. */
export const KNOWN_LOGIN_MAX_AGE_MS = 15 * 60_000;

/** A login as the object keeps it. */
export interface KnownLogin {
  userId: string;
  name: string;
  locale?: Locale;
  readAt: number;
  expiresAt: number;
}

/** Who a verified login belongs to (the Worker's read of the cookie). */
export interface CallerIdentity {
  userId: string;
  name: string;
  locale?: Locale | undefined;
}

interface LoginRow extends Record<string, SqlStorageValue> {
  login_session: string;
  user_id: string;
  name: string;
  locale: string | null;
  read_at: number;
  expires_at: number;
}

interface ChangeRow extends Record<string, SqlStorageValue> {
  user_id: string;
  at: number;
}

interface Known {
  logins: Map<string, KnownLogin>;
  /** The sealed profile per person (null: they have none saved), and when the Worker read it. */
  profiles: Map<string, { sealed: SealedLlmProfile | null; readAt: number }>;
  /** Per person, when the Worker last told of a change to them. */
  changed: Map<string, number>;
}

export class KnownCallers {
  readonly #sql: SqlStorage;
  readonly #now: () => number;
  #known: Known | null = null;

  constructor(sql: SqlStorage, now: () => number = () => Date.now()) {
    this.#sql = sql;
    this.#now = now;
  }

  #read(): Known {
    if (this.#known) return this.#known;
    const known: Known = { logins: new Map(), profiles: new Map(), changed: new Map() };
    for (const row of this.#sql.exec<LoginRow>('SELECT login_session, user_id, name, locale, read_at, expires_at FROM known_logins')) {
      known.logins.set(row.login_session, {
        userId: row.user_id,
        name: row.name,
        ...(isLocale(row.locale) ? { locale: row.locale } : {}),
        readAt: row.read_at,
        expiresAt: row.expires_at,
      });
    }
    for (const row of this.#sql.exec<ChangeRow>('SELECT user_id, at FROM caller_changes')) known.changed.set(row.user_id, row.at);
    this.#known = known;
    return known;
  }

  /** False when the Worker told of a change to the person at or after the read. */
  #current(userId: string, readAt: number): boolean {
    const changed = this.#read().changed.get(userId);
    return changed === undefined || readAt > changed;
  }

  /** Keep a login the Worker checked (a newer read replaces an older one; a stale or expired one is not kept). */
  rememberLogin(caller: VerifiedCaller, who: CallerIdentity): void {
    if (!this.#current(who.userId, caller.readAt) || caller.expiresAt <= this.#now()) return;
    const kept = this.#read().logins.get(caller.loginSession);
    if (kept && (kept.readAt > caller.readAt || kept.userId !== who.userId)) return;
    this.#sql.exec(
      `INSERT INTO known_logins (login_session, user_id, name, locale, read_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(login_session) DO UPDATE SET name = excluded.name, locale = excluded.locale, read_at = excluded.read_at, expires_at = excluded.expires_at`,
      caller.loginSession,
      who.userId,
      who.name,
      who.locale ?? null,
      caller.readAt,
      caller.expiresAt,
    );
    this.#read().logins.set(caller.loginSession, {
      userId: who.userId,
      name: who.name,
      ...(who.locale ? { locale: who.locale } : {}),
      readAt: caller.readAt,
      expiresAt: caller.expiresAt,
    });
  }

  /** Keep the sealed profile the Worker read for `userId` at `readAt` (null: none saved). */
  rememberProfile(userId: string, sealed: SealedLlmProfile | null, readAt: number): void {
    if (!this.#current(userId, readAt)) return;
    const known = this.#read();
    const kept = known.profiles.get(userId);
    if (kept && kept.readAt >= readAt) return;
    known.profiles.set(userId, { sealed, readAt });
  }

  /** The login kept for `loginSession`, while its cookie and the Worker's read are still young enough; else null. */
  login(loginSession: string): KnownLogin | null {
    const login = this.#read().logins.get(loginSession);
    if (!login) return null;
    const now = this.#now();
    if (login.expiresAt <= now || now - login.readAt > KNOWN_LOGIN_MAX_AGE_MS) return null;
    return login;
  }

  /** The sealed profile kept for `userId` (null: none saved), or undefined when none was kept or it is too old. */
  profile(userId: string): SealedLlmProfile | null | undefined {
    const kept = this.#read().profiles.get(userId);
    if (!kept || this.#now() - kept.readAt > KNOWN_LOGIN_MAX_AGE_MS) return undefined;
    return kept.sealed;
  }

  /** The Worker told of a change to `userId` at `at`: forget their logins and profile; older reads are not kept again. */
  forget(userId: string, at: number): void {
    const known = this.#read();
    this.#sql.exec(
      'INSERT INTO caller_changes (user_id, at) VALUES (?, ?) ON CONFLICT(user_id) DO UPDATE SET at = MAX(at, excluded.at)',
      userId,
      at,
    );
    known.changed.set(userId, Math.max(known.changed.get(userId) ?? 0, at));
    this.forgetLogins(userId);
    known.profiles.delete(userId);
  }

  /** Drop `userId`'s kept logins (one, or all when `loginSession` is null): a sign-out's tidy-up; sign-outs.ts decides. */
  forgetLogins(userId: string, loginSession: string | null = null): void {
    const known = this.#read();
    if (loginSession === null) this.#sql.exec('DELETE FROM known_logins WHERE user_id = ?', userId);
    else this.#sql.exec('DELETE FROM known_logins WHERE user_id = ? AND login_session = ?', userId, loginSession);
    for (const [id, login] of known.logins) {
      if (login.userId === userId && (loginSession === null || id === loginSession)) known.logins.delete(id);
    }
  }
}
