/**
 * The sign-outs the Worker told this session of (the project channel's `signedOut`), kept in its
 * SQLite so they survive hibernation. The hub closes the sockets it finds at once; this record is
 * what stops the ones it could not find: an upgrade that passed the cookie check just before the
 * sign-out and reaches the object just after it, or any socket a bug kept out of the hub's list.
 * A connect and every frame are checked against it, in memory (the object is the table's only
 * writer, so it reads the table once per wake).
 *
 * A login's own sign-out is for ever (its cookie is gone); "sign out everywhere" ends every login
 * of that person whose cookie was read at or before the time D1 had it.
 */
import type { SignedOut } from '../../../shared/ai/project-channel.ts';

interface SignOutRow extends Record<string, SqlStorageValue> {
  user_id: string;
  login_session: string;
  at: number;
}

/** The `login_session` value of a "sign out everywhere" row. */
const EVERYWHERE = '';

export class SignOuts {
  readonly #sql: SqlStorage;
  /** Login sessions that signed out, and per person the latest "everywhere"; null until read. */
  #known: { logins: Set<string>; everywhere: Map<string, number> } | null = null;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  #read(): { logins: Set<string>; everywhere: Map<string, number> } {
    if (this.#known) return this.#known;
    const known = { logins: new Set<string>(), everywhere: new Map<string, number>() };
    for (const row of this.#sql.exec<SignOutRow>('SELECT user_id, login_session, at FROM sign_outs')) {
      if (row.login_session === EVERYWHERE) known.everywhere.set(row.user_id, row.at);
      else known.logins.add(row.login_session);
    }
    this.#known = known;
    return known;
  }

  /** Keep what the Worker told (an older "everywhere" never replaces a newer one). */
  record(message: SignedOut): void {
    const login = message.loginSessionId ?? EVERYWHERE;
    this.#sql.exec(
      `INSERT INTO sign_outs (user_id, login_session, at) VALUES (?, ?, ?)
       ON CONFLICT(user_id, login_session) DO UPDATE SET at = MAX(at, excluded.at)`,
      message.userId,
      login,
      message.at,
    );
    const known = this.#read();
    if (message.loginSessionId !== null) known.logins.add(message.loginSessionId);
    else known.everywhere.set(message.userId, Math.max(known.everywhere.get(message.userId) ?? 0, message.at));
  }

  /** True when a socket of `userId`'s login `loginSession`, whose cookie was read at `readAt`, was signed out. */
  ended(userId: string, loginSession: string, readAt: number): boolean {
    const known = this.#read();
    if (known.logins.has(loginSession)) return true;
    const everywhere = known.everywhere.get(userId);
    return everywhere !== undefined && readAt <= everywhere;
  }
}
