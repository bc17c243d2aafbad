/**
 * Resolve the session cookie to a user, or answer 401 with the reason. Sets `user`, and `access`:
 * the role on the URL's project and whether the URL's AI session is in it, read in the same query
 * (projectAccess and the session routes use it instead of asking D1 again).
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { ApiError } from '../../shared/api-error.ts';
import { clearSessionCookie, readSessionCookie } from '../auth/cookies.ts';
import { lookupSession, type LookupScope } from '../auth/accounts.ts';

const SCOPED_PATH = /^\/api\/projects\/([^/]+)(?:\/ai\/sessions\/([^/]+))?/;
/** A message to the AI (routes/ai-sessions.ts): its turn needs the sender's AI profile, read in the same query. */
const MESSAGE_PATH = /^\/api\/projects\/[^/]+\/ai\/sessions\/[^/]+\/messages$/;

function scopeOf(method: string, path: string): LookupScope {
  const match = SCOPED_PATH.exec(path);
  return {
    projectId: match?.[1] ? decodeURIComponent(match[1]) : null,
    sessionId: match?.[2] ? decodeURIComponent(match[2]) : null,
    ...(method === 'POST' && MESSAGE_PATH.test(path) ? { withSenderProfile: true } : {}),
  };
}

export function requireUser(): MiddlewareHandler<AppEnv> {
  return async function requireUserGuard(c, next) {
    const token = readSessionCookie(c);
    if (!token) throw new ApiError('AUTH_MISSING_TOKEN', { hints: ['Sign in to continue.'] });
    const readAt = Date.now();
    // The primary, not a replica: a login ended or a member removed a moment ago must not get in.
    const session = await lookupSession(c.var.primaryDb, token, scopeOf(c.req.method, c.req.path));
    switch (session.type) {
      case 'valid':
        c.set('user', session.user);
        c.set('sessionTokenHash', session.tokenHash);
        c.set('access', { ...session.access, readAt });
        return next();
      case 'expired':
        clearSessionCookie(c);
        throw new ApiError('AUTH_TOKEN_EXPIRED', { hints: ['Sign in again.'] });
      case 'invalid':
        clearSessionCookie(c);
        throw new ApiError('AUTH_INVALID_TOKEN', { hints: ['Sign in again.'] });
      default: {
        const never: never = session;
        throw new Error(`unhandled session lookup ${String(never)}`);
      }
    }
  };
}
