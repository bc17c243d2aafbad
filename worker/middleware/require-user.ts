/**
 * Resolve the session cookie to a user, or answer 401 with the reason. Sets `user`, and `access`:
 * the role on the URL's project and whether the URL's AI session is in it, read in the same query
 * (projectAccess and the session routes use it instead of asking D1 again). With `preloads`, the
 * matching route's reads go in the same round trip (auth/preload.ts; the route takes them through
 * middleware/preloaded.ts once projectAccess let the caller in).
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { ApiError } from '../../shared/api-error.ts';
import { clearSessionCookie, readSessionCookie } from '../auth/cookies.ts';
import { lookupSession, type LookupScope } from '../auth/accounts.ts';
import { preloadsFor, type Preload } from '../auth/preload.ts';
import { decodeSegment } from '../http/context.ts';

const SCOPED_PATH = /^\/api\/projects\/([^/]+)(?:\/ai\/sessions\/([^/]+))?/;

function scopeOf(path: string): LookupScope {
  const match = SCOPED_PATH.exec(path);
  return { projectId: match?.[1] ? decodeSegment(match[1]) : null, sessionId: match?.[2] ? decodeSegment(match[2]) : null };
}

export function requireUser(preloads: readonly Preload<unknown>[] = []): MiddlewareHandler<AppEnv> {
  return async function requireUserGuard(c, next) {
    const token = readSessionCookie(c);
    if (!token) throw new ApiError('AUTH_MISSING_TOKEN', { hints: ['Sign in to continue.'] });
    const readAt = Date.now();
    // The primary, not a replica: a login ended or a member removed a moment ago must not get in.
    const session = await lookupSession(c.var.primaryDb, token, scopeOf(c.req.path), preloadsFor(preloads, c.req.method, c.req.path));
    switch (session.type) {
      case 'valid':
        c.set('user', session.user);
        c.set('sessionTokenHash', session.tokenHash);
        c.set('loginExpiresAt', session.expiresAt);
        c.set('access', { ...session.access, readAt });
        if (session.preloaded) c.set('preloaded', session.preloaded);
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
