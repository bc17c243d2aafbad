/** Resolve the session cookie to a user, or answer 401 with the reason. Sets `user`. */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { ApiError } from '../../shared/api-error.ts';
import { clearSessionCookie, readSessionCookie } from '../auth/cookies.ts';
import { lookupSession } from '../auth/accounts.ts';

export function requireUser(): MiddlewareHandler<AppEnv> {
  return async function requireUserGuard(c, next) {
    const token = readSessionCookie(c);
    if (!token) throw new ApiError('AUTH_MISSING_TOKEN', { hints: ['Sign in to continue.'] });
    const session = await lookupSession(c.var.db, token);
    switch (session.type) {
      case 'valid':
        c.set('user', session.user);
        c.set('sessionTokenHash', session.tokenHash);
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
