/** /api/auth: register, sign in, sign out (this login, or everywhere), who am I. */
import { Hono } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { jsonBody } from '../http/validate.ts';
import { ok } from '../http/respond.ts';
import { ApiError } from '../http/api-error.ts';
import { LoginInput, RegisterInput } from '../../shared/api/auth.ts';
import { login, logout, logoutAll, register } from '../auth/accounts.ts';
import { loginSessionId } from '../auth/login-session-id.ts';
import { tellUserProjects } from '../live/project-channel.ts';
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
    // The live session sockets this login opened close before the answer (project channel).
    const loginSession = await loginSessionId(c.var.sessionTokenHash);
    await tellUserProjects(c.env, c.var.db, c.var.user.id, { type: 'signedOut', userId: c.var.user.id, loginSessionId: loginSession });
    clearSessionCookie(c);
    return ok(c, { ok: true });
  })
  .post('/logout-all', requireUser(), async (c) => {
    // Sign out everywhere: every login of this user, and every live socket of theirs in every project.
    await logoutAll(c.var.db, c.var.user.id);
    await tellUserProjects(c.env, c.var.db, c.var.user.id, { type: 'signedOut', userId: c.var.user.id, loginSessionId: null });
    clearSessionCookie(c);
    return ok(c, { ok: true });
  })
  .get('/me', requireUser(), (c) => ok(c, { user: c.var.user }));
