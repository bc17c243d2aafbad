/** The bindings and variables the Worker receives (wrangler.toml, secrets in .dev.vars). */
export interface Env {
  DB: D1Database;
  AI_SESSION: DurableObjectNamespace;
  ASSETS: Fetcher;
  /** `allow-all | disable-all | allow-openai-compatible-only` (spec README §4). */
  LLM_ORG_POLICY_MODE?: string;
  /** `true` lets LLM base URLs point at private/loopback hosts (local models). */
  LLM_ALLOW_PRIVATE_BASE_URLS?: string;
  /** Key-encryption key for stored API keys (base64, 32 bytes). A secret. */
  LLM_KEY_ENCRYPTION_KEY?: string;
}
