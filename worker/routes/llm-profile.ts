/**
 * /api/users/me/llm-profile: the caller's own LLM settings. There is no user id in
 * the path, so nobody can address another user's profile. The key is write-only.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { jsonBody, optionalJsonBody } from '../http/validate.ts';
import { ok } from '../http/respond.ts';
import { requireUser } from '../middleware/require-user.ts';
import { TestLlmProfileInput, UpdateLlmProfileInput } from '../../shared/api/llm-profile.ts';
import { readProfile, saveProfile, testDraftProfile, testSavedProfile } from '../llm/profile-service.ts';
import { probeProvider } from '../llm/profile-probe.ts';

export const llmProfileRoutes = new Hono<AppEnv>()
  .use(requireUser())
  .get('/', async (c) => ok(c, await readProfile(c.env, c.var.db, c.var.user.id)))
  .put('/', jsonBody(UpdateLlmProfileInput), async (c) =>
    ok(c, await saveProfile(c.env, c.var.db, c.var.user.id, c.req.valid('json'))),
  )
  // No body (or `{}`) tests the saved profile and records its health; a body tests those values.
  .post('/test', optionalJsonBody(TestLlmProfileInput), async (c) => {
    const body = c.req.valid('json');
    const result =
      Object.keys(body).length === 0
        ? await testSavedProfile(c.env, c.var.db, c.var.user.id, probeProvider)
        : await testDraftProfile(c.env, c.var.db, c.var.user.id, body, probeProvider);
    return ok(c, result);
  });
