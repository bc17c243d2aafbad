/** /api/auth: register, sign in, sign out, who am I. */
import { Hono } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { jsonBody } from '../http/validate.ts';
import { ok } from '../http/respond.ts';
import { ApiError } from '../http/api-error.ts';
import { LoginInput, RegisterInput } from '../../shared/api/auth.ts';
import { login, logout, register } from '../auth/accounts.ts';
import { clearSessionCookie, setSessionCookie } from '../auth/cookies.ts';
import { requireUser } from '../middleware/require-user.ts';

export const authRoutes = new Hono<AppEnv>()
  .post('/register', jsonBody(RegisterInput), async (c) => {
    const result = await register(c.var.db, c.req.valid('json'));
    if (result.type === 'email_taken') {
      throw new ApiError('AUTH_EMAIL_TAKEN', { hints: ['Sign in instead, or use another email.'] });
    }
    setSessionCookie(c, result.token);
    return ok(c, { user: result.user }, 201);
  })
  .post('/login', jsonBody(LoginInput), async (c) => {
    const result = await login(c.var.db, c.req.valid('json'));
    switch (result.type) {
      case 'signed_in':
        setSessionCookie(c, result.token);
        return ok(c, { user: result.user });
      case 'invalid_credentials':
        throw new ApiError('AUTH_INVALID_CREDENTIALS', { hints: ['Check the email and password and try again.'] });
      case 'throttled':
        throw new ApiError('RATE_LIMITED', {
          message: `Too many failed sign-ins for this email. Try again in ${Math.ceil(result.retryAfterSeconds / 60)} minute(s).`,
          headers: { 'retry-after': String(result.retryAfterSeconds) },
          extra: { retryAfterSeconds: result.retryAfterSeconds },
        });
      default: {
        const never: never = result;
        throw new Error(`unhandled login result ${String(never)}`);
      }
    }
  })
  .post('/logout', requireUser(), async (c) => {
    await logout(c.var.db, c.var.sessionTokenHash, c.var.user.id);
    clearSessionCookie(c);
    return ok(c, { ok: true });
  })
  .get('/me', requireUser(), (c) => ok(c, { user: c.var.user }));
