/**
 * POST …/ai/sessions/:sessionId/messages from a login the session already knows, with no D1 round
 * trip (issue 19: message → 202 under distance). The session object vouches for the caller: the
 * Worker checked that login against D1 for an earlier request to the session (its socket, its
 * creation, a message), and the project channel has told the object of every sign-out, role change,
 * change to the person and project deletion since (durable-objects/ai-session/sockets/known-callers.ts).
 *
 * Anything the object cannot vouch for, or would refuse, goes on to the usual route: requireUser's one round trip,
 * the route's checks, its answers. So a refusal (401, 403, 404, a bad body) always comes from
 * there, after the caller is known, and an unknown caller learns nothing here. Same-origin and the
 * D1 session middleware ran before this, as for every request.
 */
import type { Context, Next } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { readSessionCookie } from '../auth/cookies.ts';
import { isSessionTokenShaped } from '../auth/accounts.ts';
import { sha256Hex } from '../../shared/hash.ts';
import { loginSessionId } from '../auth/login-session-id.ts';
import { MessageInput, MessageQuery } from '../../shared/api/ai-sessions.ts';
import { tryJsonBody } from '../http/validate.ts';
import { ok } from '../http/respond.ts';
import { sessionObject } from '../live/session-stub.ts';
import { unwrap } from './session-rpc.ts';

/** The ids the Worker makes (shared/ids.ts): anything else is not a session, and goes the usual way. */
const ID = /^[A-Za-z0-9_-]{1,64}$/;

export async function knownCallerMessage(c: Context<AppEnv>, next: Next): Promise<Response | void> {
  const token = readSessionCookie(c);
  const projectId = c.req.param('projectId');
  const sessionId = c.req.param('sessionId');
  if (!token || !isSessionTokenShaped(token) || !projectId || !sessionId || !ID.test(projectId) || !ID.test(sessionId)) return next();
  // ?wait answers at the turn's end: the usual route does that.
  const query = MessageQuery.safeParse(c.req.query());
  if (!query.success || query.data.wait !== 0) return next();
  const input = await tryJsonBody(c, MessageInput);
  if (!input) return next();
  const stub = await sessionObject(c.env.AI_SESSION, sessionId);
  const accepted = unwrap(await stub.sendKnownMessage(projectId, await loginSessionId(await sha256Hex(token)), input));
  if (accepted === null) return next();
  return ok(c, accepted, 202);
}
