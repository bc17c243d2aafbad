/**
 * The one answer to "which model may this user's AI call, with which key?", used by the profile
 * API (GET's effectiveAvailability, the test of the saved profile) and by the AI session.
 * Precedence: OrgPolicy > UserProfile > SystemDefault.
 *
 * 1. The org policy: `disable-all` (or an unrecognised mode) blocks everything.
 * 2. The user's own profile, when its provider is not `disabled`: the policy must allow the
 *    provider, the base URL must pass base-url.ts with today's settings, the key must decrypt.
 *    A profile that fails any of these is unavailable; it does not fall back to the default.
 * 3. Otherwise the system default (`LLM_SYSTEM_DEFAULT_BASE_URL` + `LLM_SYSTEM_DEFAULT_MODEL`,
 *    optional secret `LLM_SYSTEM_DEFAULT_API_KEY`), still under the policy. It is configured by
 *    operators, so it may point at a private address even when users' URLs may not.
 * 4. Otherwise AI is off for the user: `AI_DISABLED`.
 *
 * The decrypted key lives only in the returned object: never store it, log it or send it.
 */
import type { Db } from '../db/client.ts';
import type { LlmVars } from './llm-vars.ts';
import type { ErrorCode } from '../../shared/errors.ts';
import { LLM_TIMEOUT_SECONDS } from '../../shared/api/llm-profile.ts';
import { allowPrivateBaseUrls, checkBaseUrl } from './base-url.ts';
import { loadKeyring, openApiKey, type KekEnv, type KeyProblem } from './crypto.ts';
import { checkAiAllowed, checkOrgPolicy } from './policy.ts';
import { findProfileRow, sealedKeyOf } from './profile-store.ts';
import type { ProviderProfile, SealedLlmProfile } from '../../shared/llm/types.ts';

/** Where a person fixes their own model: the AI settings page (app/routes/settings/ai). */
const OPEN_SETTINGS = 'Open Settings → AI (/settings/ai)';
/** The next step for someone without a model; the choices are the ones that page offers. */
const SET_UP_OWN_MODEL = `${OPEN_SETTINGS}, pick a provider (OpenAI, DeepSeek, OpenRouter, Local server, Custom or the Scripted demo model), fill in the base URL, model and key, and save.`;

/** The slice of the Worker's env that LLM settings read. */
export type LlmEnv = KekEnv &
  Pick<
    LlmVars,
    | 'LLM_ORG_POLICY_MODE'
    | 'LLM_ALLOW_PRIVATE_BASE_URLS'
    | 'LLM_SYSTEM_DEFAULT_BASE_URL'
    | 'LLM_SYSTEM_DEFAULT_MODEL'
    | 'LLM_SYSTEM_DEFAULT_API_KEY'
  >;

export interface EffectiveLlmProfile {
  baseUrl: string;
  model: string;
  /** Plaintext; null for servers that need no key (local models). */
  apiKey: string | null;
  timeoutSeconds: number;
  contextWindow: number | null;
  source: 'user' | 'system';
}

export type UnavailableCode = Extract<
  ErrorCode,
  | 'AI_DISABLED'
  | 'LLM_PROFILE_ORG_POLICY_BLOCKED'
  | 'LLM_PROFILE_ENCRYPTION_ERROR'
  | 'LLM_PROFILE_INVALID_PROVIDER'
  | 'LLM_PROFILE_MISSING_BASE_URL'
  | 'LLM_PROFILE_MISSING_MODEL'
>;

export type EffectiveProfileResult =
  | { type: 'available'; profile: EffectiveLlmProfile }
  | { type: 'unavailable'; code: UnavailableCode; message: string; hints: string[] };

/** The effective LLM settings of `userId`, read fresh from D1 and the env. */
export async function resolveEffectiveProfile(env: LlmEnv, db: Db, userId: string): Promise<EffectiveProfileResult> {
  return resolveFromRow(env, userId, await findProfileRow(db, userId));
}

/**
 * resolveEffectiveProfile for a row already read: GET reads it anyway, and a message's sender's
 * comes with the cookie's query (worker/auth/accounts.ts), so a turn asks D1 nothing for it.
 */
export async function resolveFromRow(env: LlmEnv, userId: string, row: SealedLlmProfile | undefined): Promise<EffectiveProfileResult> {
  const gate = checkAiAllowed(env);
  if (gate.type === 'blocked') return unavailable('LLM_PROFILE_ORG_POLICY_BLOCKED', gate.message, gate.hints);
  if (row !== undefined && row.provider !== 'disabled') return resolveUserProfile(env, userId, row);
  return resolveSystemDefault(env);
}

/** The user's own saved profile only (the test of the saved profile uses this, not the default). */
export async function resolveUserProfile(env: LlmEnv, userId: string, row: SealedLlmProfile): Promise<EffectiveProfileResult> {
  if (row.provider !== 'openai-compatible') {
    return unavailable('LLM_PROFILE_INVALID_PROVIDER', `The saved provider "${row.provider}" is not supported.`, [
      `${OPEN_SETTINGS}, pick one of its providers and save again.`,
    ]);
  }
  const policy = checkOrgPolicy(env, row.provider);
  if (policy.type === 'blocked') return unavailable('LLM_PROFILE_ORG_POLICY_BLOCKED', policy.message, policy.hints);
  if (row.baseUrl === null) {
    return unavailable('LLM_PROFILE_MISSING_BASE_URL', 'Your AI settings have no base URL.', [
      `${OPEN_SETTINGS}, enter the base URL of the model server and save.`,
    ]);
  }
  const url = checkBaseUrl(row.baseUrl, { allowPrivate: allowPrivateBaseUrls(env) });
  switch (url.type) {
    case 'ok':
      break;
    case 'invalid':
      return unavailable('LLM_PROFILE_MISSING_BASE_URL', `The saved base URL cannot be used: ${url.message}`, [url.hint]);
    case 'private_not_allowed':
      return unavailable('LLM_PROFILE_ORG_POLICY_BLOCKED', url.message, [url.hint]);
    default: {
      const never: never = url;
      throw new Error(`unhandled base URL check ${String(never)}`);
    }
  }
  if (row.model === null) {
    return unavailable('LLM_PROFILE_MISSING_MODEL', 'Your AI settings have no model.', [`${OPEN_SETTINGS}, enter the model name and save.`]);
  }
  const key = await decryptStoredKey(env, userId, row);
  if (key.type === 'failed') return unavailable('LLM_PROFILE_ENCRYPTION_ERROR', key.problem.message, [key.problem.hint]);
  return {
    type: 'available',
    profile: {
      baseUrl: url.url,
      model: row.model,
      apiKey: key.apiKey,
      timeoutSeconds: row.timeoutSeconds,
      contextWindow: row.contextWindow,
      source: 'user',
    },
  };
}

function resolveSystemDefault(env: LlmEnv): EffectiveProfileResult {
  const baseUrl = env.LLM_SYSTEM_DEFAULT_BASE_URL?.trim() ?? '';
  const model = env.LLM_SYSTEM_DEFAULT_MODEL?.trim() ?? '';
  if (baseUrl === '' && model === '') {
    return unavailable('AI_DISABLED', 'No AI model is set up for you: you have no model of your own and this server has no default model.', [
      SET_UP_OWN_MODEL,
      'Or ask your operator to set LLM_SYSTEM_DEFAULT_BASE_URL and LLM_SYSTEM_DEFAULT_MODEL (and the secret LLM_SYSTEM_DEFAULT_API_KEY if the model needs a key), so everyone gets a default model.',
    ]);
  }
  if (baseUrl === '' || model === '') {
    return unavailable('AI_DISABLED', 'No AI model is set up for you, and the default model of this server is only half set up.', [
      SET_UP_OWN_MODEL,
      'Operators: set both LLM_SYSTEM_DEFAULT_BASE_URL and LLM_SYSTEM_DEFAULT_MODEL, or neither.',
    ]);
  }
  const policy = checkOrgPolicy(env, 'openai-compatible');
  if (policy.type === 'blocked') return unavailable('LLM_PROFILE_ORG_POLICY_BLOCKED', policy.message, policy.hints);
  const url = checkBaseUrl(baseUrl, { allowPrivate: true });
  if (url.type !== 'ok') {
    return unavailable('LLM_PROFILE_MISSING_BASE_URL', 'The default model of this server is not set up correctly.', [
      SET_UP_OWN_MODEL,
      `Operators: LLM_SYSTEM_DEFAULT_BASE_URL is not usable: ${url.type === 'invalid' ? url.message : 'it was refused'}`,
    ]);
  }
  return {
    type: 'available',
    profile: {
      baseUrl: url.url,
      model,
      apiKey: env.LLM_SYSTEM_DEFAULT_API_KEY?.trim() || null,
      timeoutSeconds: LLM_TIMEOUT_SECONDS.default,
      contextWindow: null,
      source: 'system',
    },
  };
}

/**
 * The row's key in plaintext (null when none is stored), or why it cannot be read. Failures are
 * logged for operators with the reason and the user id, never with key material.
 */
export async function decryptStoredKey(
  env: KekEnv,
  userId: string,
  row: SealedLlmProfile | undefined,
): Promise<{ type: 'ok'; apiKey: string | null } | { type: 'failed'; problem: KeyProblem }> {
  const sealed = sealedKeyOf(row);
  if (sealed === null) return { type: 'ok', apiKey: null };
  const keyring = await loadKeyring(env);
  const opened = keyring.type === 'ok' ? await openApiKey(keyring.keyring, userId, sealed) : { type: 'failed' as const, problem: keyring.problem };
  if (opened.type === 'failed') console.warn('llm api key not decrypted', { userId, version: sealed.version, reason: opened.problem.reason });
  return opened;
}

/**
 * Sent as the key to servers that need none (local models): the openai SDK refuses to start
 * without one, and such servers ignore it (Ollama's docs use the same approach).
 */
export const KEYLESS_API_KEY = 'no-key';

/** The provider adapter's settings (worker/llm/provider.ts `createChatProvider`) for an effective profile. */
export function toProviderProfile(profile: Pick<EffectiveLlmProfile, 'baseUrl' | 'model' | 'apiKey' | 'timeoutSeconds'> & { contextWindow?: number | null }): ProviderProfile {
  return {
    baseUrl: profile.baseUrl,
    model: profile.model,
    apiKey: profile.apiKey ?? KEYLESS_API_KEY,
    timeoutSeconds: profile.timeoutSeconds,
    ...(profile.contextWindow ? { contextWindow: profile.contextWindow } : {}),
  };
}

function unavailable(code: UnavailableCode, message: string, hints: string[]): EffectiveProfileResult {
  return { type: 'unavailable', code, message, hints };
}
