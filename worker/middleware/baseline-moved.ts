/**
 * After a write that moves a project's stored package or settings (a Builder save, a revert, an
 * apply, a settings update), tell the project's live sessions `baselineMoved` before answering,
 * so the baseline they keep (durable-objects/ai-session/overlay/baseline-cache.ts) is never read
 * after the writer was told "saved".
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { tellProject } from '../live/project-channel.ts';

/** Project-scoped writes that change what a session reads under its overlay; group 1 or 2 is the project id. */
const MOVES = /^\/api\/projects\/([^/]+)\/(?:workflows|agents|assets|history)(?:\/.*)?$|^\/api\/projects\/([^/]+)\/ai\/sessions\/[^/]+\/apply$/;
/** The project itself: only its update (review rule, domain profile) moves what sessions read. */
const PROJECT = /^\/api\/projects\/([^/]+)$/;

function movedProject(method: string, path: string): string | null {
  if (method === 'GET' || method === 'HEAD') return null;
  const moved = MOVES.exec(path);
  if (moved) return moved[1] ?? moved[2] ?? null;
  return method === 'PATCH' ? (PROJECT.exec(path)?.[1] ?? null) : null;
}

export function baselineMoved(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (c.res.status >= 300) return;
    const projectId = movedProject(c.req.method, c.req.path);
    if (projectId) await tellProject(c.env, c.var.db, decodeURIComponent(projectId), { type: 'baselineMoved' });
  };
}
