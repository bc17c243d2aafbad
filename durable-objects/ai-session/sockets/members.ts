/**
 * What the session object knows of each person's role on its project, kept in its SQLite so it
 * survives hibernation. A socket's connect seeds it with the role the Worker read at the upgrade;
 * the Worker's project channel (`membershipChanged`) tells it of every change after that. Each
 * entry carries the time its role was read or written in D1, and an older word never overwrites a
 * newer one: an upgrade that read "editor" just before a demotion cannot bring the editor back.
 * The object is the table's only writer, so what it read is kept in memory: checking a socket
 * frame against the role in force reads no storage.
 */
import { Role } from '../../../shared/api/common.ts';

interface MemberRow extends Record<string, SqlStorageValue> {
  role: string | null;
}

export class Members {
  readonly #sql: SqlStorage;
  /** What the table says per person, as last read or written here (absent: not read yet). */
  readonly #known = new Map<string, Role | null | undefined>();

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** The role in force for `userId` (null: no longer a member), or undefined if never told. */
  roleOf(userId: string): Role | null | undefined {
    if (this.#known.has(userId)) return this.#known.get(userId);
    const role = this.#read(userId);
    this.#known.set(userId, role);
    return role;
  }

  #read(userId: string): Role | null | undefined {
    const row = this.#sql.exec<MemberRow>('SELECT role FROM members WHERE user_id = ?', userId).toArray()[0];
    if (!row) return undefined;
    const role = Role.safeParse(row.role);
    return role.success ? role.data : null;
  }

  /**
   * A role read at connect or with a request (`at`): kept only when nothing newer is known. Returns
   * the role in force. The role already in force is not written again (a message's check reads the
   * same role each time): a change told later still wins over it, as it would over the new read.
   */
  seed(userId: string, role: Role, at: number): Role | null {
    if (this.roleOf(userId) === role) return role;
    this.#sql.exec(
      `INSERT INTO members (user_id, role, at) VALUES (?, ?, ?)
       ON CONFLICT(user_id) DO UPDATE SET role = excluded.role, at = excluded.at WHERE excluded.at > members.at`,
      userId,
      role,
      at,
    );
    // The upsert may have kept a newer word: read back what the table holds now.
    this.#known.delete(userId);
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
    // The upsert may have kept a newer word: read back what the table holds now.
    this.#known.delete(userId);
    return this.roleOf(userId) ?? null;
  }
}
