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
