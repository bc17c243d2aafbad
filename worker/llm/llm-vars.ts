/**
 * The Worker's LLM settings as wrangler.toml and secrets give them: the slice of the env that the
 * LLM service reads. worker/env.ts extends it, so this service (and the session object that uses
 * it) never names the Worker's edge.
 */
export interface LlmVars {
  /** `allow-all | disable-all | allow-openai-compatible-only`; it outranks every profile (worker/llm/policy.ts). */
  LLM_ORG_POLICY_MODE?: string;
  /** `true` lets LLM base URLs point at private/loopback hosts (local models). */
  LLM_ALLOW_PRIVATE_BASE_URLS?: string;
  /** Key-encryption key for stored API keys (base64, 32 bytes). A secret. See worker/llm/crypto.ts. */
  LLM_KEY_ENCRYPTION_KEY?: string;
  /** The version number of LLM_KEY_ENCRYPTION_KEY (whole number, default 1); bump it on rotation. */
  LLM_KEY_ENCRYPTION_KEY_VERSION?: string;
  /** During a rotation: the previous key-encryption key (version - 1). A secret. */
  LLM_KEY_ENCRYPTION_KEY_PREVIOUS?: string;
  /** The organisation's default model, used when a user's own profile is disabled or unset. */
  LLM_SYSTEM_DEFAULT_BASE_URL?: string;
  LLM_SYSTEM_DEFAULT_MODEL?: string;
  /** The default model's API key. A secret. */
  LLM_SYSTEM_DEFAULT_API_KEY?: string;
  /** Model prices, USD per 1M tokens: `{"model-id":{"input":0.15,"output":0.6}}` over shared/ai/pricing.ts's defaults. */
  LLM_PRICES_JSON?: string;
}
