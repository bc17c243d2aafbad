/**
 * How a route reaches a session's Durable Object: the stub (after checking the session belongs to
 * the project in the URL), the caller as the session's actor, and an Outcome turned into a response.
 * The object is typed by its RPC contract (shared/ai/session-rpc.ts), never by its class.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { ApiError } from '../../shared/api-error.ts';
import { param } from '../http/context.ts';
import { sessionInProject } from '../store/ai-sessions.ts';
import { sessionObject as sessionByName } from '../live/session-stub.ts';
import type { Outcome } from '../../shared/ai/outcome.ts';
import type { Actor, AiSessionStub, VerifiedCaller } from '../../shared/ai/session-rpc.ts';
import { loginSessionId } from '../auth/login-session-id.ts';

type Ctx = Context<AppEnv>;

/** The object of `sessionId` (no project check: for a session the route has just created). */
export function sessionObject(c: Ctx, sessionId: string): Promise<AiSessionStub> {
  return sessionByName(c.env.AI_SESSION, sessionId);
}

/** The object's answer, or its error thrown as the same ApiError (code, status, hints, details, extra). */
export function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.data;
  const { code, message, hints, details, ...extra } = outcome.error;
  throw new ApiError(code, {
    message,
    status: outcome.status,
    ...(hints ? { hints } : {}),
    ...(details ? { details } : {}),
    extra,
  });
}

export function actorOf(c: Ctx): Actor {
  const { locale } = c.var.user;
  return { userId: c.var.user.id, name: c.var.user.name, role: c.var.role, ...(locale ? { locale } : {}) };
}

/** The session's object, after checking the session belongs to the project in the URL. */
export async function sessionStub(c: Ctx): Promise<AiSessionStub> {
  const sessionId = param(c, 'sessionId');
  const access = c.var.access;
  // Read with the cookie (requireUser) when the URL named this session in this project.
  const known = access?.projectId === c.var.projectId && access.sessionId === sessionId;
  if (!(known ? access.sessionInProject : await sessionInProject(c.var.db, c.var.projectId, sessionId))) throw new ApiError('AI_SESSION_NOT_FOUND');
  return sessionObject(c, sessionId);
}

/** The login this request's cookie was checked for (requireUser), for the object to keep (its next message needs no D1 read). */
export async function verifiedCaller(c: Ctx): Promise<VerifiedCaller> {
  return { loginSession: await loginSessionId(c.var.sessionTokenHash), readAt: c.var.access.readAt, expiresAt: c.var.loginExpiresAt };
}
