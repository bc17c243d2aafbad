// The LLM settings core in workerd against real D1: key encryption (WebCrypto as deployed) and
// resolveEffectiveProfile, the function the AI session uses. Pure rules are tested beside their
// modules in worker/llm/*.test.ts.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../worker/db/client.ts';
import { fromBase64, loadKeyring, openApiKey, sealApiKey, toBase64, type Keyring } from '../../worker/llm/crypto.ts';
import { resolveEffectiveProfile, type LlmEnv } from '../../worker/llm/effective-profile.ts';
import { saveProfileRow } from '../../worker/llm/profile-store.ts';
import { signedInClient } from './client.ts';

const db = () => createDb(env.DB);
const withEnv = (overrides: Partial<LlmEnv>): LlmEnv => ({ ...env, ...overrides });
const OTHER_KEK = toBase64(new Uint8Array(32).fill(7));

async function keyring(overrides: Partial<LlmEnv> = {}): Promise<Keyring> {
  const loaded = await loadKeyring(withEnv(overrides));
  if (loaded.type !== 'ok') throw new Error(loaded.problem.hint);
  return loaded.keyring;
}

function flipBit(base64: string, byte: number, bit = 0): string {
  const bytes = fromBase64(base64)!;
  bytes[byte]! ^= 1 << bit;
  return toBase64(bytes);
}

describe('API key encryption', () => {
  it('uses a fresh nonce per encryption, so the same key never gives the same ciphertext', async () => {
    const ring = await keyring();
    const a = await sealApiKey(ring, 'usr_a', 'sk-same-key-1234567890');
    const b = await sealApiKey(ring, 'usr_a', 'sk-same-key-1234567890');
    expect(a.nonce).not.toBe(b.nonce);
    expect(a.ciphertext).not.toBe(b.ciphertext);
    expect(fromBase64(a.nonce)!.byteLength).toBe(12);
    expect(a.version).toBe(1);
    expect(await openApiKey(ring, 'usr_a', a)).toEqual({ type: 'ok', apiKey: 'sk-same-key-1234567890' });
  });

  it("fails closed when the ciphertext is opened as another user's", async () => {
    const ring = await keyring();
    const sealed = await sealApiKey(ring, 'usr_a', 'sk-owned-by-a-1234567890');
    const opened = await openApiKey(ring, 'usr_b', sealed);
    expect(opened.type).toBe('failed');
    expect(opened.type === 'failed' && opened.problem.reason).toBe('authentication_failed');
    expect(JSON.stringify(opened)).not.toContain('owned-by-a');
  });

  it('fails closed when one bit of the ciphertext, the tag or the nonce is flipped', async () => {
    const ring = await keyring();
    const sealed = await sealApiKey(ring, 'usr_a', 'sk-bitflip-1234567890');
    const length = fromBase64(sealed.ciphertext)!.byteLength;
    for (const damaged of [
      { ...sealed, ciphertext: flipBit(sealed.ciphertext, 0) },
      { ...sealed, ciphertext: flipBit(sealed.ciphertext, length - 1, 7) },
      { ...sealed, nonce: flipBit(sealed.nonce, 11, 3) },
    ]) {
      expect((await openApiKey(ring, 'usr_a', damaged)).type).toBe('failed');
    }
  });

  it('refuses a missing or malformed key-encryption key with a hint for operators', async () => {
    for (const bad of [undefined, '', 'not base64!!', toBase64(new Uint8Array(16))]) {
      const loaded = await loadKeyring(withEnv({ LLM_KEY_ENCRYPTION_KEY: bad }));
      expect(loaded.type).toBe('unavailable');
      expect(loaded.type === 'unavailable' && loaded.problem.hint).toMatch(/LLM_KEY_ENCRYPTION_KEY/);
    }
    const badVersion = await loadKeyring(withEnv({ LLM_KEY_ENCRYPTION_KEY_VERSION: 'two' }));
    expect(badVersion.type).toBe('unavailable');
  });

  it('rotates: the previous key still opens old rows, new rows use the new version', async () => {
    const v1 = await keyring();
    const old = await sealApiKey(v1, 'usr_r', 'sk-rotate-1234567890');
    const rotated = await keyring({
      LLM_KEY_ENCRYPTION_KEY: OTHER_KEK,
      LLM_KEY_ENCRYPTION_KEY_VERSION: '2',
      LLM_KEY_ENCRYPTION_KEY_PREVIOUS: env.LLM_KEY_ENCRYPTION_KEY,
    });
    expect(await openApiKey(rotated, 'usr_r', old)).toEqual({ type: 'ok', apiKey: 'sk-rotate-1234567890' });
    const fresh = await sealApiKey(rotated, 'usr_r', 'sk-rotate-1234567890');
    expect(fresh.version).toBe(2);
    const withoutPrevious = await keyring({ LLM_KEY_ENCRYPTION_KEY: OTHER_KEK, LLM_KEY_ENCRYPTION_KEY_VERSION: '2' });
    const opened = await openApiKey(withoutPrevious, 'usr_r', old);
    expect(opened.type === 'failed' && opened.problem.reason).toBe('unknown_version');
  });
});

describe('resolveEffectiveProfile', () => {
  const SYSTEM = {
    LLM_SYSTEM_DEFAULT_BASE_URL: 'https://llm.example.org/v1/',
    LLM_SYSTEM_DEFAULT_MODEL: 'org-default',
    LLM_SYSTEM_DEFAULT_API_KEY: 'sk-system-key-1234567890',
  };

  async function userWithProfile(apiKey: string | null = 'sk-user-key-1234567890') {
    const user = await signedInClient('Resolve');
    const ring = await keyring();
    await saveProfileRow(
      db(),
      user.userId,
      { provider: 'openai-compatible', preset: 'custom', baseUrl: 'https://api.example.com/v1', model: 'gpt-test', timeoutSeconds: 30, contextWindow: 128000 },
      apiKey === null ? { type: 'clear' } : { type: 'set', sealed: await sealApiKey(ring, user.userId, apiKey), last4: apiKey.slice(-4) },
    );
    return user;
  }

  it('answers AI_DISABLED for a user without a profile and without a system default', async () => {
    const user = await signedInClient('Nobody');
    expect(await resolveEffectiveProfile(env, db(), user.userId)).toMatchObject({ type: 'unavailable', code: 'AI_DISABLED' });
  });

  it("uses the user's profile, key decrypted, over the system default", async () => {
    const user = await userWithProfile();
    expect(await resolveEffectiveProfile(withEnv(SYSTEM), db(), user.userId)).toEqual({
      type: 'available',
      profile: {
        baseUrl: 'https://api.example.com/v1',
        model: 'gpt-test',
        apiKey: 'sk-user-key-1234567890',
        timeoutSeconds: 30,
        contextWindow: 128000,
        source: 'user',
      },
    });
  });

  it('falls back to the system default when the user profile is disabled or unset', async () => {
    const unset = await signedInClient('Unset');
    const disabled = await signedInClient('Disabled');
    await saveProfileRow(db(), disabled.userId, { provider: 'disabled', preset: null, baseUrl: null, model: null, timeoutSeconds: 60, contextWindow: null }, { type: 'keep' });
    for (const user of [unset, disabled]) {
      expect(await resolveEffectiveProfile(withEnv(SYSTEM), db(), user.userId)).toEqual({
        type: 'available',
        profile: { baseUrl: 'https://llm.example.org/v1', model: 'org-default', apiKey: 'sk-system-key-1234567890', timeoutSeconds: 60, contextWindow: null, source: 'system' },
      });
    }
  });

  it('lets the org policy win over the user profile and over the system default', async () => {
    const user = await userWithProfile();
    const unset = await signedInClient('Unset');
    const blocked = withEnv({ ...SYSTEM, LLM_ORG_POLICY_MODE: 'disable-all' });
    for (const id of [user.userId, unset.userId]) {
      const result = await resolveEffectiveProfile(blocked, db(), id);
      expect(result).toMatchObject({ type: 'unavailable', code: 'LLM_PROFILE_ORG_POLICY_BLOCKED' });
      expect(JSON.stringify(result)).not.toContain('sk-');
    }
  });

  it('re-checks a saved private base URL against the current setting', async () => {
    const user = await signedInClient('Private');
    await saveProfileRow(
      db(),
      user.userId,
      { provider: 'openai-compatible', preset: 'local', baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama', timeoutSeconds: 60, contextWindow: null },
      { type: 'clear' },
    );
    expect(await resolveEffectiveProfile(env, db(), user.userId)).toMatchObject({ type: 'available', profile: { apiKey: null, source: 'user' } });
    expect(await resolveEffectiveProfile(withEnv({ LLM_ALLOW_PRIVATE_BASE_URLS: 'false' }), db(), user.userId)).toMatchObject({
      type: 'unavailable',
      code: 'LLM_PROFILE_ORG_POLICY_BLOCKED',
    });
  });

  it("fails closed with LLM_PROFILE_ENCRYPTION_ERROR on another user's ciphertext, a flipped bit, or a missing KEK", async () => {
    const a = await userWithProfile('sk-canary-a-1234567890');
    const b = await userWithProfile('sk-b-own-key-1234567890');
    await env.DB.prepare(
      `UPDATE user_llm_profiles SET (api_key_ciphertext, api_key_nonce, api_key_version) =
         (SELECT api_key_ciphertext, api_key_nonce, api_key_version FROM user_llm_profiles WHERE user_id = ?) WHERE user_id = ?`,
    )
      .bind(a.userId, b.userId)
      .run();
    const copied = await resolveEffectiveProfile(env, db(), b.userId);
    expect(copied).toMatchObject({ type: 'unavailable', code: 'LLM_PROFILE_ENCRYPTION_ERROR' });
    expect(JSON.stringify(copied)).not.toContain('canary');

    const row = await env.DB.prepare('SELECT api_key_ciphertext AS c FROM user_llm_profiles WHERE user_id = ?').bind(a.userId).first<{ c: string }>();
    await env.DB.prepare('UPDATE user_llm_profiles SET api_key_ciphertext = ? WHERE user_id = ?').bind(flipBit(row!.c, 3, 5), a.userId).run();
    expect(await resolveEffectiveProfile(env, db(), a.userId)).toMatchObject({ type: 'unavailable', code: 'LLM_PROFILE_ENCRYPTION_ERROR' });

    const c = await userWithProfile();
    expect(await resolveEffectiveProfile(withEnv({ LLM_KEY_ENCRYPTION_KEY: undefined }), db(), c.userId)).toMatchObject({
      type: 'unavailable',
      code: 'LLM_PROFILE_ENCRYPTION_ERROR',
      hints: [expect.stringMatching(/LLM_KEY_ENCRYPTION_KEY/)],
    });
  });
});
