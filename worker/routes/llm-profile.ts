/**
 * /api/users/me/llm-profile: the caller's own LLM settings. There is no user id in
 * the path, so nobody can address another user's profile. The key is write-only. A change tells
 * the caller's live AI sessions (`callerChanged`), which drop the profile they kept, so the next
 * message runs with the new one.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { jsonBody, optionalJsonBody } from '../http/validate.ts';
import { ok } from '../http/respond.ts';
import { requireUser } from '../middleware/require-user.ts';
import { TestLlmProfileInput, UpdateLlmProfileInput } from '../../shared/api/llm-profile.ts';
import { readProfile, saveProfile, testDraftProfile, testSavedProfile } from '../llm/profile-service.ts';
import { probeProvider } from '../llm/profile-probe.ts';
import { tellCallerChanged } from '../live/project-channel.ts';

export const llmProfileRoutes = new Hono<AppEnv>()
  .use(requireUser())
  .get('/', async (c) => ok(c, await readProfile(c.env, c.var.db, c.var.user.id)))
  .put('/', jsonBody(UpdateLlmProfileInput), async (c) => {
    const view = await saveProfile(c.env, c.var.db, c.var.user.id, c.req.valid('json'));
    await tellCallerChanged(c.env, c.var.db, c.var.user.id);
    return ok(c, view);
  })
  // No body (or `{}`) tests the saved profile and records its health; a body tests those values.
  .post('/test', optionalJsonBody(TestLlmProfileInput), async (c) => {
    const body = c.req.valid('json');
    if (Object.keys(body).length > 0) return ok(c, await testDraftProfile(c.env, c.var.db, c.var.user.id, body, probeProvider));
    // Testing the saved profile writes a row when there was none (a disabled one): sessions must not keep "none".
    const result = await testSavedProfile(c.env, c.var.db, c.var.user.id, probeProvider);
    await tellCallerChanged(c.env, c.var.db, c.var.user.id);
    return ok(c, result);
  });
