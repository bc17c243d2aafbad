/**
 * GET /api/projects/:projectId/ai/sessions/:sessionId/ws — the live channel. The Worker checks
 * the cookie (requireUser), the role (projectAccess), the Origin and the session's project,
 * then forwards the upgrade to the session's Durable Object with the verified identity.
 */
import { Hono } from 'hono';
import { and, eq } from 'drizzle-orm';
import type { AppEnv } from '../app-env.ts';
import { ApiError } from '../http/api-error.ts';
import { param } from '../http/context.ts';
import { projectAccess } from '../middleware/project-access.ts';
import { aiSessions } from '../db/schema.ts';
import { IDENTITY_HEADERS } from '../../shared/protocol.ts';

export const sessionSocketRoutes = new Hono<AppEnv>()
  .use(projectAccess())
  .get('/:sessionId/ws', async (c) => {
    if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') {
      throw new ApiError('BAD_REQUEST', { status: 426, message: 'This address expects a WebSocket upgrade.' });
    }
    // A WebSocket upgrade is a GET, so sameOrigin() does not cover it: check here (CSWSH).
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== new URL(c.req.url).origin) throw new ApiError('FORBIDDEN_ORIGIN');
    const sessionId = param(c, 'sessionId');
    const session = await c.var.db
      .select({ id: aiSessions.id })
      .from(aiSessions)
      .where(and(eq(aiSessions.id, sessionId), eq(aiSessions.projectId, c.var.projectId)))
      .get();
    if (!session) throw new ApiError('AI_SESSION_NOT_FOUND');
    const headers = new Headers(c.req.raw.headers);
    headers.set(IDENTITY_HEADERS.userId, c.var.user.id);
    headers.set(IDENTITY_HEADERS.name, c.var.user.name);
    headers.set(IDENTITY_HEADERS.role, c.var.role);
    headers.set(IDENTITY_HEADERS.projectId, c.var.projectId);
    const stub = c.env.AI_SESSION.get(c.env.AI_SESSION.idFromName(sessionId));
    return stub.fetch(new Request(c.req.raw.url, { method: 'GET', headers }));
  });
