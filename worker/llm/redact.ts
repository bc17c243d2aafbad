// Removes secrets from text and values before they reach a message, an event or a log. Used by the
// provider adapter on every error and every answer it produces; safe to use anywhere (pure, no platform APIs).

import { replaceRanges, secretMatcher } from './secret-forms.ts';

export const REDACTED = '***REDACTED***';

/**
 * Key-shaped tokens of common providers: OpenAI and DeepSeek (`sk-…`, `sk-proj-…`), Anthropic
 * (`sk-ant-…`), Groq (`gsk_…`) and Google (`AIza…`).
 */
const KEY_PATTERNS: readonly RegExp[] = [
  /\bsk-[A-Za-z0-9][A-Za-z0-9_-]{5,}/g,
  /\bgsk_[A-Za-z0-9]{10,}/g,
  /\bAIza[0-9A-Za-z_-]{20,}/g,
];

/** `Bearer <credential>` (and Basic) in headers or prose. */
const AUTH_SCHEME = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=*-]+/gi;

/**
 * `name: value` / `name=value` / `"name":"value"` where the name says secret. The value is what
 * follows up to a quote, space, comma, ampersand or brace.
 */
const NAMED_VALUE =
  /((?:api[_-]?key|apikey|authorization|access[_-]?token|refresh[_-]?token|token|secret|client[_-]?secret|password|passwd)["']?\s*[:=]\s*["']?)(?!Bearer\b|Basic\b)([^"'\s,&}]+)/gi;

/**
 * A property name whose value is a secret: apiKey, api_key, authorization, and any name containing
 * token, secret or password. Token counts (`max_tokens`, `prompt_tokens`, `totalTokens`) are not secrets.
 */
export function isSecretKey(name: string): boolean {
  const lower = name.toLowerCase();
  if (/tokens$/.test(lower)) return false;
  return (
    /^(api[-_]?key|x-api-key|authorization|proxy-authorization)$/.test(lower) ||
    lower.includes('token') ||
    lower.includes('secret') ||
    lower.includes('password')
  );
}

/**
 * Replaces every echo of `knownSecrets` (the profile's key, whatever its shape) with ***REDACTED***:
 * the key as is or in any ASCII case, spaced out with whitespace, zero-width characters or dashes,
 * base64 (standard or url-safe, at any alignment), URL-encoded, or hex (secret-forms.ts). Nothing
 * else is touched, so model output (JSON answers, tool arguments, config files) keeps its shape.
 */
export function redactKnownSecrets(text: string, knownSecrets: readonly string[]): string {
  if (knownSecrets.length === 0) return text;
  return replaceRanges(text, secretMatcher(knownSecrets).find(text), REDACTED);
}

/**
 * Replaces secrets in `text` with ***REDACTED***: every echo of `knownSecrets` (redactKnownSecrets),
 * key-shaped tokens, Bearer credentials and values of secret-named fields.
 */
export function redactText(text: string, knownSecrets: readonly string[] = []): string {
  let out = redactKnownSecrets(text, knownSecrets);
  out = out.replace(AUTH_SCHEME, (_match, scheme: string) => `${scheme} ${REDACTED}`);
  for (const pattern of KEY_PATTERNS) out = out.replace(pattern, REDACTED);
  out = out.replace(NAMED_VALUE, (match, prefix: string, value: string) => (value === REDACTED ? match : `${prefix}${REDACTED}`));
  return out;
}

/**
 * A deep copy of `value` with secrets removed: string values of secret-named fields become
 * ***REDACTED***, every other string goes through redactText. Errors become `{name, message}`.
 * Cycles are cut.
 */
export function redactSecrets(value: unknown, knownSecrets: readonly string[] = []): unknown {
  const seen = new WeakSet<object>();
  const visit = (current: unknown): unknown => {
    if (typeof current === 'string') return redactText(current, knownSecrets);
    if (typeof current !== 'object' || current === null) return current;
    if (seen.has(current)) return '[Circular]';
    seen.add(current);
    if (current instanceof Error) return { name: current.name, message: redactText(current.message, knownSecrets) };
    if (Array.isArray(current)) return current.map(visit);
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(current)) {
      out[key] = isSecretKey(key) && typeof child === 'string' && child.length > 0 ? REDACTED : visit(child);
    }
    return out;
  };
  return visit(value);
}
