/**
 * Contracts of /api/users/me/llm-profile: the caller's own LLM settings, the connection test,
 * and the one semantic check that turns a body into the product's LLM_PROFILE_* error codes.
 * The Worker parses with these schemas; the SPA imports the same check to show errors early.
 */
import * as z from 'zod';
import type { ErrorCode } from '../errors.ts';

export const LLM_PROVIDERS = ['disabled', 'openai-compatible'] as const;
export const LlmProvider = z.enum(LLM_PROVIDERS);
export type LlmProvider = z.infer<typeof LlmProvider>;

/**
 * UI presets: labels that pre-fill the form. Every preset is served by the `openai-compatible`
 * provider, so neither org policy nor the server ever looks at them; the base URL is what counts.
 */
export const LLM_PRESETS = ['openai', 'deepseek', 'openrouter', 'local', 'custom', 'scripted-demo'] as const;
export const LlmPreset = z.enum(LLM_PRESETS);
export type LlmPreset = z.infer<typeof LlmPreset>;

export const LLM_HEALTH_STATUSES = ['unknown', 'ok', 'failed'] as const;
export const LlmHealthStatus = z.enum(LLM_HEALTH_STATUSES);
export type LlmHealthStatus = z.infer<typeof LlmHealthStatus>;

/** `timeout_seconds` defaults to 60 and is bounded to 5–600 (LLM_PROFILE_INVALID_TIMEOUT outside). */
export const LLM_TIMEOUT_SECONDS = { min: 5, max: 600, default: 60 } as const;

/**
 * An API key as it may travel in an `Authorization: Bearer` header: visible ASCII, no spaces.
 * Anything else would make fetch() throw with the header value (the key) in its message.
 */
export const LlmApiKey = z
  .string()
  .trim()
  .min(1, 'Enter the API key, or send null to remove the saved one.')
  .max(512, 'An API key is at most 512 characters.')
  .regex(/^[\x21-\x7e]+$/, 'An API key contains only visible ASCII characters, without spaces.');

/**
 * The body of PUT (save) and of POST …/test (try without saving). Strict: unknown fields are
 * refused. `provider`, `baseUrl`, `model` and `timeoutSeconds` are loosely typed here on purpose,
 * so that `checkLlmProfileInput` can answer with its own LLM_PROFILE_* codes instead of a generic one.
 * `apiKey`: absent keeps the saved key, `null` removes it, a string replaces it.
 */
export const LlmProfileInput = z.strictObject({
  provider: z.string().max(64).optional(),
  preset: LlmPreset.nullable().optional(),
  baseUrl: z.string().max(2048, 'A base URL is at most 2048 characters.').nullable().optional(),
  model: z.string().max(256, 'A model name is at most 256 characters.').nullable().optional(),
  apiKey: LlmApiKey.nullable().optional(),
  timeoutSeconds: z.number().optional(),
  contextWindow: z
    .number()
    .int('Use a whole number of tokens.')
    .min(1024, 'A context window is at least 1024 tokens.')
    .max(10_000_000, 'A context window is at most 10,000,000 tokens.')
    .nullable()
    .optional(),
});
export type LlmProfileInput = z.infer<typeof LlmProfileInput>;

/** PUT /users/me/llm-profile. */
export const UpdateLlmProfileInput = LlmProfileInput;
export type UpdateLlmProfileInput = LlmProfileInput;

/**
 * POST /users/me/llm-profile/test. No body (or `{}`) tests the saved profile and records its
 * health; a body tests those values and stores nothing. Without `apiKey`, the saved key is used,
 * but only if the base URL is on the same server (scheme, host, port) it was saved for.
 */
export const TestLlmProfileInput = LlmProfileInput;
export type TestLlmProfileInput = LlmProfileInput;

/** A body that passed `checkLlmProfileInput`: trimmed, defaults applied. */
export type CheckedLlmProfile =
  | {
      provider: 'disabled';
      preset: LlmPreset | null;
      baseUrl: string | null;
      model: string | null;
      timeoutSeconds: number;
      contextWindow: number | null;
    }
  | {
      provider: 'openai-compatible';
      preset: LlmPreset | null;
      baseUrl: string;
      model: string;
      timeoutSeconds: number;
      contextWindow: number | null;
    };

export type LlmProfileInputProblem = {
  code: Extract<
    ErrorCode,
    'LLM_PROFILE_INVALID_PROVIDER' | 'LLM_PROFILE_MISSING_BASE_URL' | 'LLM_PROFILE_MISSING_MODEL' | 'LLM_PROFILE_INVALID_TIMEOUT'
  >;
  field: 'provider' | 'baseUrl' | 'model' | 'timeoutSeconds';
  message: string;
  hint: string;
};

export type LlmProfileInputCheck = { type: 'valid'; profile: CheckedLlmProfile } | { type: 'invalid'; problem: LlmProfileInputProblem };

function blankToNull(value: string | null | undefined): string | null {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}

function isLlmProvider(value: string): value is LlmProvider {
  return (LLM_PROVIDERS as readonly string[]).includes(value);
}

/**
 * The semantic rules of a profile, in the order a person fixes them: provider, base URL, model,
 * timeout. `disabled` needs nothing else (what is sent is kept, so switching back is one click).
 * The base URL's form and address are checked by the Worker (worker/llm/base-url.ts).
 */
export function checkLlmProfileInput(input: LlmProfileInput): LlmProfileInputCheck {
  const provider = input.provider?.trim() ?? '';
  if (!isLlmProvider(provider)) {
    return {
      type: 'invalid',
      problem: {
        code: 'LLM_PROFILE_INVALID_PROVIDER',
        field: 'provider',
        // Only API clients can get here (the settings page always sends one of the two), so the
        // message names the field's values; the hint says how the page's choices map onto them.
        message:
          provider === ''
            ? 'Set the "provider" field: "openai-compatible" to use a model, or "disabled" to turn AI off.'
            : `"${provider.slice(0, 64)}" is not a value of the "provider" field; send "openai-compatible" or "disabled".`,
        hint: 'In Settings → AI every provider (OpenAI, DeepSeek, OpenRouter, Local server, Custom, Scripted demo model) is "openai-compatible"; "Turn AI off" is "disabled".',
      },
    };
  }
  const timeoutSeconds = input.timeoutSeconds ?? LLM_TIMEOUT_SECONDS.default;
  const timeoutProblem: LlmProfileInputProblem | undefined =
    Number.isInteger(timeoutSeconds) && timeoutSeconds >= LLM_TIMEOUT_SECONDS.min && timeoutSeconds <= LLM_TIMEOUT_SECONDS.max
      ? undefined
      : {
          code: 'LLM_PROFILE_INVALID_TIMEOUT',
          field: 'timeoutSeconds',
          message: `The timeout must be a whole number of seconds between ${LLM_TIMEOUT_SECONDS.min} and ${LLM_TIMEOUT_SECONDS.max}; ${String(timeoutSeconds)} is not.`,
          hint: `${LLM_TIMEOUT_SECONDS.default} seconds suits most hosted models; slow local models may need more.`,
        };
  const common = {
    preset: input.preset ?? null,
    baseUrl: blankToNull(input.baseUrl),
    model: blankToNull(input.model),
    timeoutSeconds,
    contextWindow: input.contextWindow ?? null,
  };
  if (provider === 'disabled') {
    return timeoutProblem ? { type: 'invalid', problem: timeoutProblem } : { type: 'valid', profile: { provider, ...common } };
  }
  if (common.baseUrl === null) {
    return {
      type: 'invalid',
      problem: {
        code: 'LLM_PROFILE_MISSING_BASE_URL',
        field: 'baseUrl',
        message: 'Enter the base URL of the model server, e.g. https://api.openai.com/v1.',
        hint: 'It is the address your provider documents for OpenAI-compatible clients, usually ending in /v1.',
      },
    };
  }
  if (common.model === null) {
    return {
      type: 'invalid',
      problem: {
        code: 'LLM_PROFILE_MISSING_MODEL',
        field: 'model',
        message: 'Enter the model name, e.g. gpt-4o-mini.',
        hint: "Use the model id exactly as your provider lists it (its /v1/models endpoint or the provider's docs).",
      },
    };
  }
  if (timeoutProblem) return { type: 'invalid', problem: timeoutProblem };
  return { type: 'valid', profile: { provider, ...common, baseUrl: common.baseUrl, model: common.model } };
}

/** Whether AI can be used right now, and why not (`effectiveAvailability` of GET /users/me/llm-profile). */
export interface LlmEffectiveAvailability {
  available: boolean;
  /** null when available. */
  code: ErrorCode | null;
  message: string;
  hints: string[];
  /** Whose settings a session would use: the user's own, the organisation's default, or none. */
  source: 'user' | 'system' | null;
  /** The model a session would call (e.g. `scripted-demo`, the offline demo); null when unavailable. */
  model: string | null;
}

/** GET and PUT answer with this. The key itself is never sent back, only `apiKeyMasked`. */
export interface LlmProfileView {
  provider: LlmProvider;
  preset: LlmPreset | null;
  baseUrl: string | null;
  model: string | null;
  /** e.g. "sk-***abcd": the prefix before the first dash, then the last 4 characters; null without a key. */
  apiKeyMasked: string | null;
  hasApiKey: boolean;
  timeoutSeconds: number;
  contextWindow: number | null;
  healthStatus: LlmHealthStatus;
  lastTestedAt: string | null;
  updatedAt: string;
  effectiveAvailability: LlmEffectiveAvailability;
}

/**
 * POST …/test answers 200 with this whatever the provider did: a failed connection is a result, not an error. Refusals that are not
 * about the provider (validation, org policy, a key that cannot be decrypted) are error responses.
 */
export type LlmProfileTestResult =
  | { ok: true; latencyMs: number; model: string }
  | { ok: false; code: ErrorCode; message: string; hints: string[] };
