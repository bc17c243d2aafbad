/**
 * After a write that moves a project's stored package or settings (a Builder save, a revert, an
 * apply, a settings update), tell the project's live sessions `baselineMoved` before answering,
 * so the baseline they keep (durable-objects/ai-session/overlay/baseline-cache.ts) is never read
 * after the writer was told "saved".
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { tellProject, tellSessions } from '../live/project-channel.ts';
import { decodeSegment } from '../http/context.ts';

/** Project-scoped writes that change what a session reads under its overlay; group 1 or 2 is the project id. */
const MOVES = /^\/api\/projects\/([^/]+)\/(?:workflows|agents|assets|history)(?:\/.*)?$|^\/api\/projects\/([^/]+)\/ai\/sessions\/[^/]+\/apply$/;
/** An apply: the session that applied has already dropped its own baseline (apply/session-apply.ts). */
const APPLIED_BY = /\/ai\/sessions\/([^/]+)\/apply$/;
/** The project itself: only its update (review rule, domain profile) moves what sessions read. */
const PROJECT = /^\/api\/projects\/([^/]+)$/;

function movedProject(method: string, path: string): string | null {
  if (method === 'GET' || method === 'HEAD') return null;
  const moved = MOVES.exec(path);
  if (moved) return moved[1] ?? moved[2] ?? null;
  return method === 'PATCH' ? (PROJECT.exec(path)?.[1] ?? null) : null;
}

/**
 * The sign-in query already listed the project's live sessions (auth/accounts.ts), so telling
 * them adds no D1 round trip to a save. A session that starts during the write may miss the
 * message: its baseline was read no earlier than its start, and Apply checks revisions in D1, so
 * it can show a stale view for a moment but never applies over the save.
 */
export function baselineMoved(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (c.res.status >= 300) return;
    const projectId = movedProject(c.req.method, c.req.path);
    if (!projectId) return;
    const id = decodeSegment(projectId);
    const message = { type: 'baselineMoved' } as const;
    const access = c.get('access') as { projectId: string | null; liveSessions: string[] } | undefined;
    const appliedBy = APPLIED_BY.exec(c.req.path)?.[1];
    const others = appliedBy === undefined ? access?.liveSessions : access?.liveSessions.filter((sessionId) => sessionId !== decodeSegment(appliedBy));
    if (access?.projectId === id && others) await tellSessions(c.env, others.map((sessionId) => ({ id: sessionId, projectId: id })), message);
    else await tellProject(c.env, c.var.db, id, message);
  };
}
