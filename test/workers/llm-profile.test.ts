// Over 400 lines on purpose: one route family (the LLM profile), one describe block per concern.
// /api/users/me/llm-profile through the real Worker and D1: read, save, validation codes, key
// secrecy, fail-closed decryption, org policy, private base URLs, and the connection test against
// the scripted OpenAI-compatible server (started by test/support/workers-global-setup.ts).
import { env } from 'cloudflare:workers';
import { afterAll, describe, expect, it } from 'vitest';
import { app } from '../../worker/app.ts';
import type { Env } from '../../worker/env.ts';
import { createDb } from '../../worker/db/client.ts';
import { resolveEffectiveProfile } from '../../worker/llm/effective-profile.ts';
import { ORIGIN, TestClient, signedInClient, type ApiResult } from './client.ts';

const PATH = '/api/users/me/llm-profile';
/** A key that must never come back: every response body of this file is searched for it. */
const CANARY = 'sk-canary-7f3a9c1e5b2d4f60a8e1';
/** The key model `scripted-needs-key` accepts (test/support/workers-global-setup.ts). */
const SCRIPTED_VALID_KEY = 'sk-scripted-valid-0123456789abcdef';

const seen: string[] = [];
function record<T extends ApiResult>(res: T): T {
  seen.push(JSON.stringify({ status: res.status, data: res.data, error: res.error, headers: [...res.headers] }));
  return res;
}

type User = TestClient & { userId: string };
const get = async (user: User) => record(await user.get(PATH));
const put = async (user: User, body: unknown) => record(await user.put(PATH, body));
const test = async (user: User, body?: unknown) =>
  record(body === undefined ? await user.request('POST', `${PATH}/test`) : await user.post(`${PATH}/test`, body));

/** The same API with some env values changed: the Hono app called directly, as the runtime would. */
async function withEnv(user: User, overrides: Partial<Env>, method: string, path: string, body?: unknown): Promise<ApiResult> {
  const headers: Record<string, string> = { origin: ORIGIN, cookie: user.cookie ?? '' };
  const text = body === undefined ? undefined : JSON.stringify(body);
  if (text !== undefined) {
    // A Request built in the test carries no Content-Length unless told; the network always does.
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(new TextEncoder().encode(text).byteLength);
  }
  const res = await app.request(`${ORIGIN}${path}`, { method, headers, ...(text === undefined ? {} : { body: text }) }, { ...env, ...overrides });
  const json = (await res.json()) as { data: any; error: any };
  return record({ status: res.status, data: json.data, error: json.error, headers: res.headers });
}

const openai = (overrides: Record<string, unknown> = {}) => ({
  provider: 'openai-compatible',
  preset: 'custom',
  baseUrl: 'https://api.example.com/v1/',
  model: 'gpt-4o-mini',
  apiKey: CANARY,
  timeoutSeconds: 60,
  contextWindow: 100000,
  ...overrides,
});

async function storedKey(userId: string) {
  return env.DB.prepare(
    'SELECT api_key_ciphertext AS ciphertext, api_key_nonce AS nonce, api_key_version AS version, api_key_last4 AS last4 FROM user_llm_profiles WHERE user_id = ?',
  )
    .bind(userId)
    .first<{ ciphertext: string | null; nonce: string | null; version: number | null; last4: string | null }>();
}

afterAll(() => {
  // The canary key was saved, tested, echoed back by a careless provider: it is in no response.
  expect(seen.length).toBeGreaterThan(20);
  expect(seen.filter((body) => body.includes(CANARY) || body.includes('7f3a9c1e5b2d'))).toEqual([]);
  expect(seen.filter((body) => body.includes(SCRIPTED_VALID_KEY))).toEqual([]);
});

describe('GET /users/me/llm-profile', () => {
  it('creates a disabled profile on first read', async () => {
    const user = await signedInClient('Lazy');
    const before = await env.DB.prepare('SELECT count(*) AS n FROM user_llm_profiles WHERE user_id = ?').bind(user.userId).first<{ n: number }>();
    expect(before!.n).toBe(0);
    const res = await get(user);
    expect(res.status).toBe(200);
    expect(res.data).toEqual({
      provider: 'disabled',
      preset: null,
      baseUrl: null,
      model: null,
      apiKeyMasked: null,
      hasApiKey: false,
      timeoutSeconds: 60,
      contextWindow: null,
      healthStatus: 'unknown',
      lastTestedAt: null,
      updatedAt: expect.any(String),
      effectiveAvailability: { available: false, code: 'AI_DISABLED', message: expect.any(String), hints: expect.any(Array), source: null, model: null },
    });
    const after = await env.DB.prepare('SELECT provider FROM user_llm_profiles WHERE user_id = ?').bind(user.userId).first<{ provider: string }>();
    expect(after!.provider).toBe('disabled');
  });

  it('needs a signed-in user', async () => {
    const res = await new TestClient().get(PATH);
    expect(res.status).toBe(401);
    expect(res.error?.code).toBe('AUTH_MISSING_TOKEN');
  });

  it("shows each user only their own profile", async () => {
    const a = await signedInClient('Owner');
    const b = await signedInClient('Other');
    expect((await put(a, openai())).status).toBe(200);
    const seenByB = await get(b);
    expect(seenByB.data).toMatchObject({ provider: 'disabled', hasApiKey: false, baseUrl: null });
  });
});

describe('PUT /users/me/llm-profile', () => {
  it('saves the profile, masks the key and stores only ciphertext', async () => {
    const user = await signedInClient('Saver');
    const res = await put(user, openai());
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({
      provider: 'openai-compatible',
      preset: 'custom',
      baseUrl: 'https://api.example.com/v1',
      model: 'gpt-4o-mini',
      apiKeyMasked: 'sk-***a8e1',
      hasApiKey: true,
      timeoutSeconds: 60,
      contextWindow: 100000,
      healthStatus: 'unknown',
      lastTestedAt: null,
      effectiveAvailability: { available: true, code: null, source: 'user', model: 'gpt-4o-mini' },
    });
    expect(JSON.stringify(res.data)).not.toContain('apiKey"');
    const row = await env.DB.prepare('SELECT * FROM user_llm_profiles WHERE user_id = ?').bind(user.userId).first<Record<string, unknown>>();
    expect(JSON.stringify(row)).not.toContain('canary');
    expect(row).toMatchObject({ api_key_version: 1, api_key_last4: 'a8e1' });
    expect((await get(user)).data.apiKeyMasked).toBe('sk-***a8e1');
  });

  it.each([
    [{ provider: 'anthropic', baseUrl: 'https://api.example.com', model: 'm' }, 'LLM_PROFILE_INVALID_PROVIDER', 'provider'],
    [{ baseUrl: 'https://api.example.com', model: 'm' }, 'LLM_PROFILE_INVALID_PROVIDER', 'provider'],
    [{ provider: 'openai-compatible', model: 'm' }, 'LLM_PROFILE_MISSING_BASE_URL', 'baseUrl'],
    [{ provider: 'openai-compatible', baseUrl: '   ', model: 'm' }, 'LLM_PROFILE_MISSING_BASE_URL', 'baseUrl'],
    [{ provider: 'openai-compatible', baseUrl: 'https://api.example.com', model: null }, 'LLM_PROFILE_MISSING_MODEL', 'model'],
    [{ provider: 'openai-compatible', baseUrl: 'https://api.example.com', model: 'm', timeoutSeconds: 4 }, 'LLM_PROFILE_INVALID_TIMEOUT', 'timeoutSeconds'],
    [{ provider: 'openai-compatible', baseUrl: 'https://api.example.com', model: 'm', timeoutSeconds: 601 }, 'LLM_PROFILE_INVALID_TIMEOUT', 'timeoutSeconds'],
    [{ provider: 'disabled', timeoutSeconds: 7.5 }, 'LLM_PROFILE_INVALID_TIMEOUT', 'timeoutSeconds'],
  ])('refuses %j with %s, a message and a hint, and stores nothing', async (body, code, field) => {
    const user = await signedInClient('Invalid');
    const res = await put(user, body);
    expect(res.status).toBe(422);
    expect(res.error).toMatchObject({ code, message: expect.any(String), hints: [expect.any(String)], details: [{ path: field, code }] });
    expect((await get(user)).data.provider).toBe('disabled');
  });

  it.each([
    [{ ...openai(), extra: true }, 'VALIDATION_FAILED'],
    [openai({ apiKey: '' }), 'VALIDATION_FAILED'],
    [openai({ apiKey: 'sk with spaces' }), 'VALIDATION_FAILED'],
    [openai({ baseUrl: 'ftp://api.example.com/v1' }), 'VALIDATION_FAILED'],
    [openai({ baseUrl: 'https://user:secret@api.example.com/v1' }), 'VALIDATION_FAILED'],
    [openai({ contextWindow: 10 }), 'VALIDATION_FAILED'],
    [openai({ preset: 'unknown-preset' }), 'VALIDATION_FAILED'],
  ])('refuses the malformed body %j with %s', async (body, code) => {
    const user = await signedInClient('Malformed');
    const res = await put(user, body);
    expect(res.status).toBe(422);
    expect(res.error?.code).toBe(code);
  });

  it('keeps the stored key when apiKey is absent and clears it on null', async () => {
    const user = await signedInClient('Keeper');
    await put(user, openai());
    const first = await storedKey(user.userId);
    const { apiKey: _omit, ...withoutKey } = openai({ model: 'gpt-4.1' });
    const kept = await put(user, withoutKey);
    expect(kept.status).toBe(200);
    expect(kept.data).toMatchObject({ model: 'gpt-4.1', hasApiKey: true, apiKeyMasked: 'sk-***a8e1' });
    expect(await storedKey(user.userId)).toEqual(first);

    const cleared = await put(user, openai({ apiKey: null }));
    expect(cleared.data).toMatchObject({ hasApiKey: false, apiKeyMasked: null });
    expect(await storedKey(user.userId)).toEqual({ ciphertext: null, nonce: null, version: null, last4: null });
  });

  it('encrypts the same key differently each time it is saved', async () => {
    const user = await signedInClient('Nonce');
    await put(user, openai());
    const first = await storedKey(user.userId);
    await put(user, openai());
    const second = await storedKey(user.userId);
    expect(second!.ciphertext).not.toBe(first!.ciphertext);
    expect(second!.nonce).not.toBe(first!.nonce);
  });

  it('sends a kept key only to the server it was saved for', async () => {
    const user = await signedInClient('Mover');
    await put(user, openai());
    const { apiKey: _omit, ...moved } = openai({ baseUrl: 'https://attacker.example.net/v1' });
    const res = await put(user, moved);
    expect(res.status).toBe(422);
    expect(res.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: 'apiKey' }] });
    expect((await get(user)).data.baseUrl).toBe('https://api.example.com/v1');
    // Another path on the same server keeps the key; a move with a fresh key or none is fine.
    expect((await put(user, { ...moved, baseUrl: 'https://api.example.com/openai/v1' })).data.hasApiKey).toBe(true);
    expect((await put(user, { ...moved, apiKey: null })).data).toMatchObject({ baseUrl: 'https://attacker.example.net/v1', hasApiKey: false });
  });

  it('resets the health to unknown on every save', async () => {
    const user = await signedInClient('Health');
    await put(user, openai());
    await env.DB.prepare("UPDATE user_llm_profiles SET health_status = 'ok', last_tested_at = '2026-01-01T00:00:00.000Z' WHERE user_id = ?")
      .bind(user.userId)
      .run();
    expect((await get(user)).data.healthStatus).toBe('ok');
    expect((await put(user, openai({ model: 'other' }))).data).toMatchObject({ healthStatus: 'unknown', lastTestedAt: null });
  });

  it('always lets a user turn AI off, and keeps what they sent', async () => {
    const user = await signedInClient('Off');
    await put(user, openai());
    const { apiKey: _omit, ...off } = openai({ provider: 'disabled' });
    const res = await put(user, off);
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ provider: 'disabled', baseUrl: 'https://api.example.com/v1', hasApiKey: true });
    expect(res.data.effectiveAvailability).toMatchObject({ available: false, code: 'AI_DISABLED' });
  });

  it('refuses to store a key when the key-encryption key is missing, with a hint for operators', async () => {
    const user = await signedInClient('NoKek');
    const res = await withEnv(user, { LLM_KEY_ENCRYPTION_KEY: undefined }, 'PUT', PATH, openai());
    expect(res.status).toBe(500);
    expect(res.error).toMatchObject({ code: 'LLM_PROFILE_ENCRYPTION_ERROR', hints: [expect.stringMatching(/LLM_KEY_ENCRYPTION_KEY/)] });
    const withoutKey = await withEnv(user, { LLM_KEY_ENCRYPTION_KEY: undefined }, 'PUT', PATH, openai({ apiKey: null }));
    expect(withoutKey.status).toBe(200);
  });
});

describe('private base URLs', () => {
  it.each(['http://127.0.0.1:11434/v1', 'http://169.254.169.254/latest', 'http://[::1]/v1', 'http://10.0.0.5/v1', 'http://localhost:8080/v1', 'http://metadata.google.internal/v1', 'http://[::ffff:0:169.254.169.254]/v1', 'http://2130706433/v1'])(
    'refuses %s on save and on test unless LLM_ALLOW_PRIVATE_BASE_URLS is "true"',
    async (baseUrl) => {
      const user = await signedInClient('Ssrf');
      const closed = { LLM_ALLOW_PRIVATE_BASE_URLS: 'false' };
      const saved = await withEnv(user, closed, 'PUT', PATH, openai({ baseUrl }));
      expect(saved.status).toBe(403);
      expect(saved.error).toMatchObject({
        code: 'LLM_PROFILE_ORG_POLICY_BLOCKED',
        hints: [expect.stringMatching(/LLM_ALLOW_PRIVATE_BASE_URLS/)],
        details: [{ path: 'baseUrl' }],
      });
      const tested = await withEnv(user, closed, 'POST', `${PATH}/test`, openai({ baseUrl }));
      expect(tested.status).toBe(403);
      expect(tested.error?.code).toBe('LLM_PROFILE_ORG_POLICY_BLOCKED');
      // The tests' own setting (like `npm start`) allows them.
      expect((await put(user, openai({ baseUrl }))).status).toBe(200);
    },
  );
});

describe('org policy', () => {
  it('disable-all blocks saving, testing and using a provider, but not turning AI off', async () => {
    const user = await signedInClient('Policy');
    await put(user, openai({ baseUrl: env.SCRIPTED_OPENAI_URL, model: 'scripted-echo' }));
    const blocked = { LLM_ORG_POLICY_MODE: 'disable-all' };

    const saved = await withEnv(user, blocked, 'PUT', PATH, openai());
    expect(saved.status).toBe(403);
    expect(saved.error?.code).toBe('LLM_PROFILE_ORG_POLICY_BLOCKED');

    const savedTest = await withEnv(user, blocked, 'POST', `${PATH}/test`);
    expect(savedTest.status).toBe(403);
    expect(savedTest.error?.code).toBe('LLM_PROFILE_ORG_POLICY_BLOCKED');
    const draftTest = await withEnv(user, blocked, 'POST', `${PATH}/test`, openai());
    expect(draftTest.error?.code).toBe('LLM_PROFILE_ORG_POLICY_BLOCKED');

    const read = await withEnv(user, blocked, 'GET', PATH);
    expect(read.data.effectiveAvailability).toMatchObject({ available: false, code: 'LLM_PROFILE_ORG_POLICY_BLOCKED' });
    expect(await resolveEffectiveProfile({ ...env, ...blocked }, createDb(env.DB), user.userId)).toMatchObject({
      type: 'unavailable',
      code: 'LLM_PROFILE_ORG_POLICY_BLOCKED',
    });

    const off = await withEnv(user, blocked, 'PUT', PATH, { provider: 'disabled' });
    expect(off.status).toBe(200);
  });

  it('allow-openai-compatible-only allows the openai-compatible provider', async () => {
    const user = await signedInClient('Only');
    const res = await withEnv(user, { LLM_ORG_POLICY_MODE: 'allow-openai-compatible-only' }, 'PUT', PATH, openai());
    expect(res.status).toBe(200);
  });

  it("reports the organisation's default model when the user's own is off", async () => {
    const user = await signedInClient('Default');
    const res = await withEnv(user, { LLM_SYSTEM_DEFAULT_BASE_URL: 'https://llm.example.org/v1', LLM_SYSTEM_DEFAULT_MODEL: 'org-model' }, 'GET', PATH);
    expect(res.data).toMatchObject({ provider: 'disabled', effectiveAvailability: { available: true, code: null, source: 'system', model: 'org-model' } });
  });
});

describe('stored keys fail closed', () => {
  async function copyKey(from: string, to: string) {
    await env.DB.prepare(
      `UPDATE user_llm_profiles SET (api_key_ciphertext, api_key_nonce, api_key_version, api_key_last4) =
         (SELECT api_key_ciphertext, api_key_nonce, api_key_version, api_key_last4 FROM user_llm_profiles WHERE user_id = ?) WHERE user_id = ?`,
    )
      .bind(from, to)
      .run();
  }

  it("refuses to use user A's ciphertext copied into user B's row", async () => {
    const a = await signedInClient('Alice');
    const b = await signedInClient('Bob');
    await put(a, openai({ baseUrl: env.SCRIPTED_OPENAI_URL, model: 'scripted-needs-key' }));
    await put(b, openai({ baseUrl: env.SCRIPTED_OPENAI_URL, model: 'scripted-needs-key', apiKey: 'sk-bob-own-key-0000000000' }));
    await copyKey(a.userId, b.userId);

    const tested = await test(b);
    expect(tested.status).toBe(500);
    expect(tested.error).toMatchObject({ code: 'LLM_PROFILE_ENCRYPTION_ERROR', message: expect.stringMatching(/enter the key again/i) });
    const draft = await test(b, { ...openai({ baseUrl: env.SCRIPTED_OPENAI_URL, model: 'scripted-needs-key' }), apiKey: undefined });
    expect(draft.error?.code).toBe('LLM_PROFILE_ENCRYPTION_ERROR');
    const read = await get(b);
    expect(read.status).toBe(200);
    expect(read.data).toMatchObject({ hasApiKey: true, apiKeyMasked: '***a8e1' });
    expect(read.data.effectiveAvailability).toMatchObject({ available: false, code: 'LLM_PROFILE_ENCRYPTION_ERROR' });
    expect(await resolveEffectiveProfile(env, createDb(env.DB), b.userId)).toMatchObject({ type: 'unavailable', code: 'LLM_PROFILE_ENCRYPTION_ERROR' });
    // Saving a fresh key repairs it.
    expect((await put(b, openai({ baseUrl: env.SCRIPTED_OPENAI_URL, model: 'scripted-needs-key', apiKey: 'sk-bob-new-key-1111111111' }))).data).toMatchObject({
      apiKeyMasked: 'sk-***1111',
      effectiveAvailability: { available: true },
    });
  });

  it('refuses to use a ciphertext with one flipped bit', async () => {
    const user = await signedInClient('Flip');
    await put(user, openai({ baseUrl: env.SCRIPTED_OPENAI_URL, model: 'scripted-needs-key' }));
    const { ciphertext } = (await storedKey(user.userId))!;
    const bytes = Uint8Array.from(atob(ciphertext!), (ch) => ch.charCodeAt(0));
    bytes[5]! ^= 0b0001_0000;
    await env.DB.prepare('UPDATE user_llm_profiles SET api_key_ciphertext = ? WHERE user_id = ?')
      .bind(btoa(String.fromCharCode(...bytes)), user.userId)
      .run();
    const tested = await test(user);
    expect(tested.status).toBe(500);
    expect(tested.error?.code).toBe('LLM_PROFILE_ENCRYPTION_ERROR');
    expect(await resolveEffectiveProfile(env, createDb(env.DB), user.userId)).toMatchObject({ type: 'unavailable', code: 'LLM_PROFILE_ENCRYPTION_ERROR' });
  });
});

describe('POST /users/me/llm-profile/test', () => {
  it('answers AI_DISABLED without calling anything when AI is off', async () => {
    const user = await signedInClient('Idle');
    const saved = await test(user);
    expect(saved.status).toBe(200);
    expect(saved.data).toMatchObject({ ok: false, code: 'AI_DISABLED', message: expect.any(String), hints: [expect.any(String)] });
    const draft = await test(user, { provider: 'disabled' });
    expect(draft.data).toMatchObject({ ok: false, code: 'AI_DISABLED' });
    expect((await get(user)).data).toMatchObject({ healthStatus: 'unknown', lastTestedAt: null });
  });

  it('validates a draft like a save', async () => {
    const user = await signedInClient('Draft');
    const res = await test(user, { provider: 'openai-compatible', baseUrl: 'https://api.example.com' });
    expect(res.status).toBe(422);
    expect(res.error?.code).toBe('LLM_PROFILE_MISSING_MODEL');
  });

  it('tests the saved profile against the provider and records health ok', async () => {
    const user = await signedInClient('Probe');
    await put(user, openai({ baseUrl: env.SCRIPTED_OPENAI_URL, model: 'scripted-needs-key', apiKey: SCRIPTED_VALID_KEY }));
    const res = await test(user);
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ ok: true, latencyMs: expect.any(Number), model: 'scripted-needs-key' });
    expect((await get(user)).data).toMatchObject({ healthStatus: 'ok', lastTestedAt: expect.any(String) });
  });

  it('reports a wrong key as AI_PROVIDER_ERROR without echoing it, and records health failed', async () => {
    const user = await signedInClient('WrongKey');
    await put(user, openai({ baseUrl: env.SCRIPTED_OPENAI_URL, model: 'scripted-needs-key' }));
    const res = await test(user);
    expect(res.status).toBe(200);
    // The scripted provider echoes the presented key in its 401, as careless providers do.
    expect(res.data).toMatchObject({ ok: false, code: 'AI_PROVIDER_ERROR', message: expect.stringContaining('***REDACTED***'), hints: expect.any(Array) });
    expect((await get(user)).data).toMatchObject({ healthStatus: 'failed', lastTestedAt: expect.any(String) });
  });

  it('reports a server that does not answer as AI_PROVIDER_UNREACHABLE', async () => {
    const user = await signedInClient('Unreachable');
    await put(user, openai({ baseUrl: env.SCRIPTED_OPENAI_UNREACHABLE_URL, model: 'any' }));
    const res = await test(user);
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ ok: false, code: 'AI_PROVIDER_UNREACHABLE' });
    expect((await get(user)).data.healthStatus).toBe('failed');
  });

  it('does not follow a redirect from the provider (it could lead to a private address)', async () => {
    const user = await signedInClient('Redirect');
    const res = await test(user, openai({ baseUrl: env.SCRIPTED_OPENAI_URL, model: 'scripted-redirect' }));
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ ok: false, code: 'AI_PROVIDER_ERROR' });
  });

  it('tests draft values without storing them, reusing the saved key for the same server only', async () => {
    const user = await signedInClient('Drafty');
    await put(user, openai({ baseUrl: env.SCRIPTED_OPENAI_URL, model: 'scripted-needs-key', apiKey: SCRIPTED_VALID_KEY }));
    const before = await get(user);

    const { apiKey: _omit, ...draft } = openai({ baseUrl: env.SCRIPTED_OPENAI_URL, model: 'scripted-needs-key', timeoutSeconds: 10 });
    const reused = await test(user, draft);
    expect(reused.data).toMatchObject({ ok: true, model: 'scripted-needs-key' });

    const wrong = await test(user, { ...draft, apiKey: CANARY });
    expect(wrong.data).toMatchObject({ ok: false, code: 'AI_PROVIDER_ERROR' });

    const elsewhere = await test(user, { ...draft, baseUrl: env.SCRIPTED_OPENAI_UNREACHABLE_URL });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.error?.details).toEqual([expect.objectContaining({ path: 'apiKey' })]);

    const after = await get(user);
    expect(after.data).toEqual(before.data);
  });

  it('a save after a test clears the verdict', async () => {
    const user = await signedInClient('Retest');
    await put(user, openai({ baseUrl: env.SCRIPTED_OPENAI_URL, model: 'scripted-echo', apiKey: SCRIPTED_VALID_KEY }));
    expect((await test(user)).data.ok).toBe(true);
    expect((await get(user)).data.healthStatus).toBe('ok');
    expect((await put(user, openai({ baseUrl: env.SCRIPTED_OPENAI_URL, model: 'scripted-echo', apiKey: SCRIPTED_VALID_KEY }))).data.healthStatus).toBe('unknown');
  });
});
