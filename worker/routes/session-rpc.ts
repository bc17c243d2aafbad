/**
 * How a route reaches a session's Durable Object: the stub (after checking the session belongs to
 * the project in the URL), the caller as the session's actor, and an Outcome turned into a response.
 */
import type { Context } from 'hono';
import { and, eq } from 'drizzle-orm';
import { getServerByName } from 'partyserver';
import type { AppEnv } from '../app-env.ts';
import { ApiError } from '../http/api-error.ts';
import { param } from '../http/context.ts';
import { aiSessions } from '../db/schema.ts';
import type { Outcome } from '../../durable-objects/ai-session/outcome.ts';
import type { Actor } from '../../durable-objects/ai-session/session.ts';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';

type Ctx = Context<AppEnv>;

/**
 * The session object's RPC surface as the routes call it. The generated stub type cannot carry
 * the open-ended error body through its serialisation types, so the methods are named here.
 */
type SessionRpc = Pick<
  AiSessionDurableObject,
  | 'createSession'
  | 'getState'
  | 'getChanges'
  | 'stage'
  | 'validate'
  | 'discard'
  | 'apply'
  | 'cancel'
  | 'comment'
  | 'setThreadStatus'
  | 'approve'
  | 'withdrawApproval'
  | 'requestChanges'
  | 'withdrawChangeRequest'
  | 'dismissChangeRequest'
  | 'overrideApprovals'
  | 'tool'
  | 'sendMessage'
  | 'waitForTurn'
  | 'stopTurn'
  | 'resumeTurn'
  | 'setTokenBudget'
  | 'fetch'
>;

export async function sessionObject(c: Ctx, sessionId: string): Promise<SessionRpc> {
  return (await getServerByName(c.env.AI_SESSION, sessionId)) as unknown as SessionRpc;
}

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
  return { userId: c.var.user.id, name: c.var.user.name, role: c.var.role };
}

/** The session's object, after checking the session belongs to the project in the URL. */
export async function sessionStub(c: Ctx) {
  const sessionId = param(c, 'sessionId');
  const row = await c.var.db
    .select({ id: aiSessions.id })
    .from(aiSessions)
    .where(and(eq(aiSessions.id, sessionId), eq(aiSessions.projectId, c.var.projectId)))
    .get();
  if (!row) throw new ApiError('AI_SESSION_NOT_FOUND');
  return sessionObject(c, sessionId);
}
