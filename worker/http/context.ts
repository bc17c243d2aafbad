/** Small readers of the request context shared by the project routes. */
import type { Context } from 'hono';
import type { AppEnv } from '../app-env.ts';
import type { CommitContext } from '../store/commit.ts';
import { ApiError } from '../../shared/api-error.ts';

export function commitContext(c: Context<AppEnv>): CommitContext {
  return { projectId: c.var.projectId, actorId: c.var.user.id };
}

/** A path parameter that the router guarantees; a missing one is a routing bug. */
export function param(c: Context<AppEnv>, name: string): string {
  const value = c.req.param(name);
  if (value === undefined) throw new ApiError('NOT_FOUND');
  return value;
}

/**
 * A path segment decoded as the router decodes its parameters: a malformed escape (`%E0%A4%A`,
 * `%ff`) is kept as written, so it names nothing and ends as the route's 404, not a URIError's 500.
 */
export function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
