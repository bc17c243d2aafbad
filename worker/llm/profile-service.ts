/**
 * The rules of /api/users/me/llm-profile: read (lazily creating `disabled`), save, and the
 * connection test of the saved or of unsaved values. Refusals are ApiErrors with the
 * LLM_PROFILE_* codes; whatever the provider answers is a test result (200), not an error.
 *
 * A saved key is only ever sent to the server (scheme, host, port) it was saved for: a save or a
 * test that moves the base URL elsewhere must carry the key again (or `apiKey: null`). Otherwise
 * anyone holding a stolen session cookie could point the base URL at their own server and have
 * the Worker hand them the key that the API otherwise never reveals.
 */
import type { Db } from '../db/client.ts';
import { ApiError } from '../../shared/api-error.ts';
import { nowIso } from '../../shared/ids.ts';
import {
  checkLlmProfileInput,
  type CheckedLlmProfile,
  type LlmProfileInput,
  type LlmProfileTestResult,
  type LlmProfileView,
} from '../../shared/api/llm-profile.ts';
import { allowPrivateBaseUrls, baseUrlOrigin, checkBaseUrl } from './base-url.ts';
import { loadKeyring, sealApiKey } from './crypto.ts';
import { decryptStoredKey, resolveFromRow, resolveUserProfile, type LlmEnv } from './effective-profile.ts';
import { checkOrgPolicy } from './policy.ts';
import { ensureProfileRow, findProfileRow, recordHealth, saveProfileRow, sealedKeyOf, type ApiKeyChange, type LlmProfileRow } from './profile-store.ts';
import { lastFour, maskApiKey, toAvailability, toProfileView } from './profile-view.ts';

/** What a connection test needs; the plaintext key lives only here, for the length of the call. */
export interface ProbeTarget {
  baseUrl: string;
  model: string;
  apiKey: string | null;
  timeoutSeconds: number;
}

/** The provider adapter's connection test, already redacted (see routes/llm-profile.ts). */
export type ProbeFn = (target: ProbeTarget) => Promise<LlmProfileTestResult>;

export async function readProfile(env: LlmEnv, db: Db, userId: string): Promise<LlmProfileView> {
  return viewOf(env, userId, await ensureProfileRow(db, userId));
}

export async function saveProfile(env: LlmEnv, db: Db, userId: string, input: LlmProfileInput): Promise<LlmProfileView> {
  const profile = checkedInput(env, input);
  const existing = await findProfileRow(db, userId);
  let key: ApiKeyChange;
  if (input.apiKey === undefined) {
    assertKeyMayFollow(existing, profile.baseUrl);
    key = { type: 'keep' };
  } else if (input.apiKey === null) {
    key = { type: 'clear' };
  } else {
    const keyring = await loadKeyring(env);
    if (keyring.type === 'unavailable') {
      throw new ApiError('LLM_PROFILE_ENCRYPTION_ERROR', { message: keyring.problem.message, hints: [keyring.problem.hint] });
    }
    key = { type: 'set', sealed: await sealApiKey(keyring.keyring, userId, input.apiKey), last4: lastFour(input.apiKey) };
  }
  return viewOf(env, userId, await saveProfileRow(db, userId, profile, key));
}

/** POST …/test without a body: tests the saved profile and records the verdict on it. */
export async function testSavedProfile(env: LlmEnv, db: Db, userId: string, probe: ProbeFn): Promise<LlmProfileTestResult> {
  const row = await ensureProfileRow(db, userId);
  if (row.provider === 'disabled') return disabledResult();
  const resolved = await resolveUserProfile(env, userId, row);
  if (resolved.type === 'unavailable') throw new ApiError(resolved.code, { message: resolved.message, hints: resolved.hints });
  const result = await probe(resolved.profile);
  await recordHealth(db, userId, row.updatedAt, result.ok ? 'ok' : 'failed', nowIso());
  return result;
}

/** POST …/test with a body: tests those values; nothing is stored. */
export async function testDraftProfile(
  env: LlmEnv,
  db: Db,
  userId: string,
  input: LlmProfileInput,
  probe: ProbeFn,
): Promise<LlmProfileTestResult> {
  const profile = checkedInput(env, input);
  if (profile.provider === 'disabled') return disabledResult();
  let apiKey: string | null;
  if (input.apiKey === undefined) {
    const existing = await findProfileRow(db, userId);
    assertKeyMayFollow(existing, profile.baseUrl);
    const stored = await decryptStoredKey(env, userId, existing);
    if (stored.type === 'failed') {
      throw new ApiError('LLM_PROFILE_ENCRYPTION_ERROR', { message: stored.problem.message, hints: [stored.problem.hint] });
    }
    apiKey = stored.apiKey;
  } else {
    apiKey = input.apiKey;
  }
  return probe({ baseUrl: profile.baseUrl, model: profile.model, apiKey, timeoutSeconds: profile.timeoutSeconds });
}

async function viewOf(env: LlmEnv, userId: string, row: LlmProfileRow): Promise<LlmProfileView> {
  const availability = toAvailability(await resolveFromRow(env, userId, row));
  let masked: string | null = null;
  if (sealedKeyOf(row) !== null) {
    const key = await decryptStoredKey(env, userId, row);
    masked = key.type === 'ok' && key.apiKey !== null ? maskApiKey(key.apiKey) : `***${row.apiKeyLast4 ?? ''}`;
  }
  return toProfileView(row, masked, availability);
}

function disabledResult(): LlmProfileTestResult {
  return {
    ok: false,
    code: 'AI_DISABLED',
    message: 'AI is turned off in these settings, so there is nothing to test.',
    hints: ['Pick a provider other than "Turn AI off", enter the base URL and model, then test again.'],
  };
}

/** The body's rules (LLM_PROFILE_* codes), the org policy, then the base URL; returns it normalised. */
function checkedInput(env: LlmEnv, input: LlmProfileInput): CheckedLlmProfile {
  const checked = checkLlmProfileInput(input);
  if (checked.type === 'invalid') {
    const { code, field, message, hint } = checked.problem;
    throw new ApiError(code, { message, hints: [hint], details: [{ path: field, message, hint, code }] });
  }
  const profile = checked.profile;
  if (profile.provider !== 'disabled') {
    const policy = checkOrgPolicy(env, profile.provider);
    if (policy.type === 'blocked') throw new ApiError('LLM_PROFILE_ORG_POLICY_BLOCKED', { message: policy.message, hints: policy.hints });
  }
  if (profile.baseUrl === null) return profile;
  const url = checkBaseUrl(profile.baseUrl, { allowPrivate: allowPrivateBaseUrls(env) });
  switch (url.type) {
    case 'ok':
      return { ...profile, baseUrl: url.url };
    case 'invalid':
      throw new ApiError('VALIDATION_FAILED', {
        message: url.message,
        hints: [url.hint],
        details: [{ path: 'baseUrl', message: url.message, hint: url.hint }],
      });
    case 'private_not_allowed':
      throw new ApiError('LLM_PROFILE_ORG_POLICY_BLOCKED', {
        message: url.message,
        hints: [url.hint],
        details: [{ path: 'baseUrl', message: url.message, hint: url.hint }],
      });
    default: {
      const never: never = url;
      throw new Error(`unhandled base URL check ${String(never)}`);
    }
  }
}

/** A kept key may only go on to the server it was saved for. */
function assertKeyMayFollow(existing: LlmProfileRow | undefined, nextBaseUrl: string | null): void {
  if (sealedKeyOf(existing) === null || nextBaseUrl === null) return;
  const savedOrigin = existing?.baseUrl ? baseUrlOrigin(existing.baseUrl) : null;
  const nextOrigin = baseUrlOrigin(nextBaseUrl);
  if (savedOrigin !== null && savedOrigin === nextOrigin) return;
  const message = savedOrigin
    ? `Enter the API key again: the saved key is only sent to ${savedOrigin}, and the base URL now points at ${nextOrigin ?? 'another server'}.`
    : 'Enter the API key again: the saved key is only sent to the server it was saved for.';
  throw new ApiError('VALIDATION_FAILED', {
    message,
    hints: ['Or send "apiKey": null to use this server without a key.'],
    details: [{ path: 'apiKey', message }],
  });
}
