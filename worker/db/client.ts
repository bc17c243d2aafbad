/**
 * drizzle over the D1 binding; one per request (it holds no connection). No schema is passed:
 * nothing uses drizzle's relational `db.query` API, and with a schema every `drizzle()` call walks
 * all tables to build that API's config (issue 19: about half a millisecond of CPU per request,
 * twice per request — the session's db and the primary db).
 */
import { drizzle } from 'drizzle-orm/d1';

export type Db = ReturnType<typeof createDb>;

export function createDb(d1: D1Database) {
  return drizzle(d1);
}
