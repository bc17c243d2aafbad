/**
 * drizzle over the D1 binding; one per request (it holds no connection). Without the schema: no
 * relational queries (db.query.*) are used, and drizzle would rebuild their config from the whole
 * schema on every call, twice per request (about ten times the cost of the call without it).
 */
import { drizzle } from 'drizzle-orm/d1';

export type Db = ReturnType<typeof createDb>;

export function createDb(d1: D1Database) {
  return drizzle(d1);
}
