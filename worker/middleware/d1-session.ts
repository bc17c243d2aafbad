/**
 * Every request reads D1 through the Sessions API: a session that starts from the bookmark the
 * client sent back (`x-d1-bookmark`), or unconstrained (any replica) without one, and answers its
 * bookmark after the request, so the client's next request reads at least its own writes.
 * With read replication off (and locally) every query still goes to the primary. Sets `db`, and
 * `primaryDb` (the binding without a session: always the primary) for the one query that must see
 * every sign-out and role change at once, whatever a replica or a replayed bookmark holds.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { createDb } from '../db/client.ts';
import { instrumentD1 } from '../db/instrumented-d1.ts';
import { D1_BOOKMARK_HEADER, parseBookmark } from '../../shared/d1-bookmark.ts';

export function d1Session(): MiddlewareHandler<AppEnv> {
  return async function d1SessionScope(c, next) {
    const d1 = instrumentD1(c.env.DB, c.env);
    c.set('primaryDb', createDb(d1));
    const session = d1.withSession(parseBookmark(c.req.header(D1_BOOKMARK_HEADER)) ?? 'first-unconstrained');
    // drizzle needs only prepare and batch, which a session has.
    c.set('db', createDb(session as unknown as D1Database));
    await next();
    // A write made elsewhere for this request (the session object's apply) came after our reads.
    const bookmark = c.var.d1Bookmark ?? session.getBookmark();
    // A socket upgrade's 101 is the session object's own answer, with immutable headers.
    if (bookmark && c.res.status !== 101) c.header(D1_BOOKMARK_HEADER, bookmark);
  };
}
