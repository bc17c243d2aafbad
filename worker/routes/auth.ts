/** /api/auth: register, sign in, sign out (this login, or everywhere), who am I. */
import { Hono } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { jsonBody } from '../http/validate.ts';
import { ok } from '../http/respond.ts';
import { ApiError } from '../../shared/api-error.ts';
import { LoginInput, RegisterInput, UpdateMeInput } from '../../shared/api/auth.ts';
import { login, logout, logoutAll, register, setUserLocale } from '../auth/accounts.ts';
import { loginSessionId } from '../auth/login-session-id.ts';
import { tellCallerChanged, tellUserProjects } from '../live/project-channel.ts';
import { clearSessionCookie, setSessionCookie } from '../auth/cookies.ts';
import { issueDeviceCookie, trustedDevice } from '../auth/device-cookie.ts';
import { clientAddress, throttledError } from '../auth/throttle.ts';
import { requireUser } from '../middleware/require-user.ts';

export const authRoutes = new Hono<AppEnv>()
  .post('/register', jsonBody(RegisterInput), async (c) => {
    const result = await register(c.var.db, c.req.valid('json'), clientAddress(c.req.raw.headers));
    if (result.type === 'throttled') throw throttledError('registrations from this network', result.retryAfterSeconds);
    if (result.type === 'email_taken') {
      throw new ApiError('AUTH_EMAIL_TAKEN', { hints: ['Sign in instead, or use another email.'] });
    }
    setSessionCookie(c, result.token);
    await issueDeviceCookie(c, c.env, result.user.email);
    return ok(c, { user: result.user }, 201);
  })
  .post('/login', jsonBody(LoginInput), async (c) => {
    const input = c.req.valid('json');
    const device = await trustedDevice(c, c.env, input.email);
    const result = await login(c.var.db, input, clientAddress(c.req.raw.headers), device);
    switch (result.type) {
      case 'signed_in':
        setSessionCookie(c, result.token);
        await issueDeviceCookie(c, c.env, result.user.email);
        return ok(c, { user: result.user });
      case 'invalid_credentials':
        throw new ApiError('AUTH_INVALID_CREDENTIALS', { hints: ['Check the email and password and try again.'] });
      case 'throttled':
        throw throttledError('sign-in attempts', result.retryAfterSeconds);
      default: {
        const never: never = result;
        throw new Error(`unhandled login result ${String(never)}`);
      }
    }
  })
  .post('/logout', requireUser(), async (c) => {
    await logout(c.var.db, c.var.sessionTokenHash, c.var.user.id);
    // The live session sockets this login opened close before the answer (project channel).
    const at = Date.now();
    const loginSession = await loginSessionId(c.var.sessionTokenHash);
    await tellUserProjects(c.env, c.var.db, c.var.user.id, { type: 'signedOut', userId: c.var.user.id, loginSessionId: loginSession, at });
    clearSessionCookie(c);
    return ok(c, { ok: true });
  })
  .post('/logout-all', requireUser(), async (c) => {
    // Sign out everywhere: every login of this user, and every live socket of theirs in every project.
    await logoutAll(c.var.db, c.var.user.id);
    // Noted after the write: an upgrade that read a cookie of theirs before it is refused by the sessions.
    const at = Date.now();
    await tellUserProjects(c.env, c.var.db, c.var.user.id, { type: 'signedOut', userId: c.var.user.id, loginSessionId: null, at });
    clearSessionCookie(c);
    return ok(c, { ok: true });
  })
  .get('/me', requireUser(), (c) => ok(c, { user: c.var.user }))
  // The person's own preferences; today the interface language, remembered for every device.
  .patch('/me', requireUser(), jsonBody(UpdateMeInput), async (c) => {
    const { locale } = c.req.valid('json');
    await setUserLocale(c.var.db, c.var.user.id, locale);
    // Their live sessions answer their messages in it from the next one (they forget the language they kept).
    await tellCallerChanged(c.env, c.var.db, c.var.user.id);
    return ok(c, { user: { ...c.var.user, locale } });
  });
