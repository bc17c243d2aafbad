/**
 * What the session object knows of each person's role on its project, kept in its SQLite so it
 * survives hibernation. A socket's connect seeds it with the role the Worker read at the upgrade;
 * the Worker's project channel (`membershipChanged`) tells it of every change after that. Each
 * entry carries the time its role was read or written in D1, and an older word never overwrites a
 * newer one: an upgrade that read "editor" just before a demotion cannot bring the editor back.
 */
import { Role } from '../../../shared/api/common.ts';

interface MemberRow extends Record<string, SqlStorageValue> {
  role: string | null;
}

export class Members {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** The role in force for `userId` (null: no longer a member), or undefined if never told. */
  roleOf(userId: string): Role | null | undefined {
    const row = this.#sql.exec<MemberRow>('SELECT role FROM members WHERE user_id = ?', userId).toArray()[0];
    if (!row) return undefined;
    const role = Role.safeParse(row.role);
    return role.success ? role.data : null;
  }

  /** A role read at connect (`at`): kept only when nothing newer is known. Returns the role in force. */
  seed(userId: string, role: Role, at: number): Role | null {
    this.#sql.exec(
      `INSERT INTO members (user_id, role, at) VALUES (?, ?, ?)
       ON CONFLICT(user_id) DO UPDATE SET role = excluded.role, at = excluded.at WHERE excluded.at > members.at`,
      userId,
      role,
      at,
    );
    return this.roleOf(userId) ?? null;
  }

  /** A change the Worker wrote at `at`: it wins over a connect read in the same millisecond. */
  change(userId: string, role: Role | null, at: number): Role | null {
    this.#sql.exec(
      `INSERT INTO members (user_id, role, at) VALUES (?, ?, ?)
       ON CONFLICT(user_id) DO UPDATE SET role = excluded.role, at = excluded.at WHERE excluded.at >= members.at`,
      userId,
      role,
      at,
    );
    return this.roleOf(userId) ?? null;
  }
}
