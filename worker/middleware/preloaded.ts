/**
 * The route's side of a preload (auth/preload.ts): the reads requireUser sent with who-is-asking,
 * released only once projectAccess let the caller into the route's project (a caller it refused
 * never reaches a route). Undefined when the request did not read them: the route reads itself.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../app-env.ts';
import type { Preload } from '../auth/preload.ts';

export function takePreloaded<T>(c: Context<AppEnv>, preload: Preload<T>): T | undefined {
  // projectAccess sets projectId and role together, after the role check passed.
  const projectId = c.var.projectId as string | undefined;
  if (!projectId || !c.var.role) return undefined;
  return c.var.preloaded?.take(preload, projectId);
}
