/** How a stored profile is shown to its owner: everything but the key, which is only ever masked. */
import type { LlmEffectiveAvailability, LlmPreset, LlmProfileView, LlmProvider } from '../../shared/api/llm-profile.ts';
import { LLM_PRESETS, LLM_PROVIDERS } from '../../shared/api/llm-profile.ts';
import type { EffectiveProfileResult } from './effective-profile.ts';
import type { LlmProfileRow } from './profile-store.ts';

/** Keys shorter than this show no tail: four characters of an eight-character key is half of it. */
const MIN_LENGTH_FOR_TAIL = 12;

/**
 * "sk-***abcd": the prefix before the first dash (a short vendor tag such as `sk`, at most 6
 * characters, else nothing), then `***`, then the last 4 characters of keys of 12 or more.
 */
export function maskApiKey(apiKey: string): string {
  const dash = apiKey.indexOf('-');
  const tag = dash > 0 ? apiKey.slice(0, dash) : '';
  const prefix = tag.length > 0 && tag.length <= 6 && /^[A-Za-z0-9_]+$/.test(tag) ? `${tag}-` : '';
  return `${prefix}***${lastFour(apiKey) ?? ''}`;
}

/** The tail shown in masks, kept beside the ciphertext so a key that will not decrypt still shows it. */
export function lastFour(apiKey: string): string | null {
  return apiKey.length >= MIN_LENGTH_FOR_TAIL ? apiKey.slice(-4) : null;
}

export function toAvailability(result: EffectiveProfileResult): LlmEffectiveAvailability {
  switch (result.type) {
    case 'available':
      return {
        available: true,
        code: null,
        message:
          result.profile.source === 'user'
            ? `AI uses your model ${result.profile.model}.`
            : `AI uses your organisation's default model ${result.profile.model}.`,
        hints: [],
        source: result.profile.source,
        model: result.profile.model,
      };
    case 'unavailable':
      return { available: false, code: result.code, message: result.message, hints: result.hints, source: null, model: null };
    default: {
      const never: never = result;
      throw new Error(`unhandled effective profile ${String(never)}`);
    }
  }
}

function asProvider(value: string): LlmProvider {
  return (LLM_PROVIDERS as readonly string[]).includes(value) ? (value as LlmProvider) : 'disabled';
}

function asPreset(value: string | null): LlmPreset | null {
  return value !== null && (LLM_PRESETS as readonly string[]).includes(value) ? (value as LlmPreset) : null;
}

/**
 * @param apiKeyMasked the mask of the decrypted key, or of the stored tail when it would not
 *   decrypt; null when the row holds no key.
 */
export function toProfileView(row: LlmProfileRow, apiKeyMasked: string | null, availability: LlmEffectiveAvailability): LlmProfileView {
  return {
    provider: asProvider(row.provider),
    preset: asPreset(row.preset),
    baseUrl: row.baseUrl,
    model: row.model,
    apiKeyMasked,
    hasApiKey: apiKeyMasked !== null,
    timeoutSeconds: row.timeoutSeconds,
    contextWindow: row.contextWindow,
    healthStatus: row.healthStatus,
    lastTestedAt: row.lastTestedAt,
    updatedAt: row.updatedAt,
    effectiveAvailability: availability,
  };
}
