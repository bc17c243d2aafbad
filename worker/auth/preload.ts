/**
 * Route preloads (issue 19: two round trips per write): reads a route will need, sent in the same
 * D1 batch as who-is-asking (accounts.ts lookupSession), so the route starts with them in hand.
 * The reads are scoped by what the URL and the cookie name (never the body: it is not read yet),
 * and what they return is released only to a route the caller was let into (middleware/preloaded.ts):
 * a caller who is signed out, expired, not a member or below the route's role gets the same answer
 * as without them, and their rows are dropped unread. Like who-is-asking they are read on the
 * primary, so they are at least as new as anything the client's bookmark has seen.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client.ts';
import { authSessions, projectMembers } from '../db/schema.ts';

/** What a preload's reads may be scoped by. */
export interface PreloadScope {
  /** The project the URL names. */
  projectId: string;
  /** The AI session the URL names, if any. */
  sessionId: string | null;
  /** The cookie's login (its token hash): a user's own rows are reached by joining `auth_sessions` on it. */
  tokenHash: string;
  /**
   * True only when the cookie's login is a member of the project: every preload read puts it in its
   * WHERE, so a request from outside the project reads no rows at all (not merely drops them).
   */
  member: SQL;
}

/** The scope of one request's preloads, with its membership guard. */
export function preloadScope(projectId: string, sessionId: string | null, tokenHash: string): PreloadScope {
  const member = sql`exists (select 1 from ${authSessions} inner join ${projectMembers} on ${projectMembers.userId} = ${authSessions.userId} where ${authSessions.tokenHash} = ${tokenHash} and ${projectMembers.projectId} = ${projectId})`;
  return { projectId, sessionId, tokenHash, member };
}

export interface Preload<T> {
  readonly method: string;
  /** The route's whole path, matched against the request's path. */
  readonly path: RegExp;
  /**
   * The reads, appended to the who-is-asking batch in this order; each must put `scope.member` in its
   * WHERE. D1 answers a batch's rows as objects keyed by column name: a read whose columns share a
   * name (a join) must alias them.
   */
  queries(db: Db, scope: PreloadScope): BatchItem<'sqlite'>[];
  /** The route's value from the reads' rows; called only for a caller the route let in. */
  decode(rows: unknown[], scope: PreloadScope): T;
}

export interface PreloadSpec<T> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The route's path as the router writes it, e.g. `/api/projects/:projectId/workflows/:workflowId`. */
  route: string;
  queries: Preload<T>['queries'];
  decode: Preload<T>['decode'];
}

/** A path with `:name` segments, as a whole-path pattern (each parameter one non-empty segment). */
function pathPattern(route: string): RegExp {
  const source = route
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}$`);
}

export function definePreload<T>(spec: PreloadSpec<T>): Preload<T> {
  return { method: spec.method, path: pathPattern(spec.route), queries: spec.queries, decode: spec.decode };
}

/** The preloads of one request. */
export function preloadsFor(preloads: readonly Preload<unknown>[], method: string, path: string): Preload<unknown>[] {
  return preloads.filter((p) => p.method === method && p.path.test(path));
}

/** The rows read for one request, each preload's decoded at most once and only when asked for. */
export class PreloadedReads {
  readonly #scope: PreloadScope;
  readonly #rows: Map<Preload<unknown>, unknown[]>;

  constructor(scope: PreloadScope, rows: Map<Preload<unknown>, unknown[]>) {
    this.#scope = scope;
    this.#rows = rows;
  }

  /**
   * The preload's value for the route of `projectId`, then forgotten: a second ask (after the
   * route's own write) reads D1 again rather than rows from before it. Undefined when this
   * request did not read it, or read it for another project.
   */
  take<T>(preload: Preload<T>, projectId: string): T | undefined {
    if (projectId !== this.#scope.projectId) return undefined;
    const rows = this.#rows.get(preload as Preload<unknown>);
    if (!rows) return undefined;
    this.#rows.delete(preload as Preload<unknown>);
    return preload.decode(rows, this.#scope);
  }
}
