// The one error type of the LLM provider adapter: a product error code, a message a person can act on,
// and hints. Messages and hints are redacted before they get here (see classify.ts).

import type { ErrorBody, ErrorCode } from '../../shared/errors.ts';

export type ProviderErrorCode = Extract<ErrorCode, 'AI_PROVIDER_ERROR' | 'AI_PROVIDER_TIMEOUT' | 'AI_PROVIDER_UNREACHABLE' | 'AI_MODEL_NO_TOOLS'>;

/** Why the call failed, finer than the code; the retry policy and tests read it. */
export const PROVIDER_FAILURE_KINDS = [
  'auth', // 401 / 403
  'not_found', // 404: usually a wrong model name or base URL path
  'bad_request', // other 4xx: the provider refused what we sent
  'no_tools', // a 4xx saying the model (or its server's configuration) cannot do tool calls
  'redirect', // 3xx: never followed, it could lead to a private address
  'rate_limit', // 429
  'quota', // 429 insufficient_quota: no credit left
  'server', // 5xx
  'timeout', // our limits: silence (profile timeoutSeconds) or the call's deadline
  'unreachable', // DNS, refused, reset before any response byte
  'malformed', // an answer that is not an OpenAI-compatible response
  'stream_broken', // the stream failed after it had started
  'too_large', // the answer grew past MAX_RESPONSE_CHARS (stream-assembler.ts): cut off, not retried
] as const;
export type ProviderFailureKind = (typeof PROVIDER_FAILURE_KINDS)[number];

export interface ProviderErrorInit {
  code: ProviderErrorCode;
  kind: ProviderFailureKind;
  message: string;
  hints: string[];
  retryable: boolean;
  status?: number;
  /** The provider's own error code, e.g. `insufficient_quota` or `invalid_api_key`. */
  providerCode?: string;
  /** How long the provider asked us to wait (Retry-After), in milliseconds. */
  retryAfterMs?: number;
}

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  readonly code: ProviderErrorCode;
  readonly kind: ProviderFailureKind;
  readonly hints: string[];
  /** True when the same request may succeed later (rate limit, 5xx, timeout, network); false when something must change first. */
  readonly retryable: boolean;
  readonly status: number | undefined;
  readonly providerCode: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(init: ProviderErrorInit) {
    super(init.message);
    this.code = init.code;
    this.kind = init.kind;
    this.hints = init.hints;
    this.retryable = init.retryable;
    this.status = init.status;
    this.providerCode = init.providerCode;
    this.retryAfterMs = init.retryAfterMs;
  }

  /** JSON.stringify would drop `message` (not enumerable on Error); logs get the whole picture. */
  toJSON(): Record<string, unknown> {
    return { ...this.toErrorBody(), kind: this.kind, ...(this.providerCode ? { providerCode: this.providerCode } : {}) };
  }

  /** The `error` half of the API envelope. */
  toErrorBody(): ErrorBody {
    return {
      code: this.code,
      message: this.message,
      hints: this.hints,
      ...(this.status !== undefined ? { providerStatus: this.status } : {}),
      retryable: this.retryable,
    };
  }
}
