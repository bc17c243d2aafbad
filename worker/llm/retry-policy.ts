// When the provider adapter retries: only before the response started, only for failures that a retry
// can fix, at most twice, and never longer than the provider asked or the deadline allows.

import type { ProviderError } from './provider-error.ts';

/** Retries after the first attempt. */
export const MAX_RETRIES = 2;
/** A Retry-After longer than this is not waited for: the error goes back with the wait in its hint. */
export const MAX_RETRY_WAIT_MS = 10_000;
/** Backoff without Retry-After: 500 ms, then 1 s, each ±20%. */
export const BASE_BACKOFF_MS = 500;

/**
 * Milliseconds the provider asked us to wait: `retry-after-ms` (OpenAI sends it), else `Retry-After`
 * as seconds or an HTTP date (RFC 9110 §10.2.3). Undefined when absent or unreadable.
 */
export function parseRetryAfterMs(headers: Headers | undefined, now: number): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms) {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const retryAfter = headers?.get('retry-after')?.trim();
  if (!retryAfter) return undefined;
  if (/^\d+(\.\d+)?$/.test(retryAfter)) return Number(retryAfter) * 1000;
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export interface RetryInput {
  error: ProviderError;
  /** Set once any byte of a response body (or a 2xx status) arrived: from then on nothing is retried. */
  responseStarted: boolean;
  /** Attempts made so far, the failed one included (1 after the first failure). */
  attempts: number;
  /** Milliseconds left before the call's deadline. */
  remainingMs: number;
  random: () => number;
}

/** The wait before the next attempt, or null when this failure must not be retried. */
export function retryDelayMs({ error, responseStarted, attempts, remainingMs, random }: RetryInput): number | null {
  if (responseStarted || attempts > MAX_RETRIES) return null;
  switch (error.kind) {
    case 'rate_limit':
    case 'server':
    case 'unreachable':
      break;
    case 'auth':
    case 'not_found':
    case 'bad_request':
    case 'no_tools':
    case 'redirect':
    case 'quota':
    case 'timeout':
    case 'malformed':
    case 'stream_broken':
    case 'too_large':
      return null;
    default: {
      const unreachable: never = error.kind;
      throw new Error(`Unknown failure kind ${String(unreachable)}`);
    }
  }
  let wait: number;
  if (error.retryAfterMs !== undefined) {
    if (error.retryAfterMs > MAX_RETRY_WAIT_MS) return null;
    wait = error.retryAfterMs;
  } else {
    wait = BASE_BACKOFF_MS * 2 ** (attempts - 1) * (0.8 + 0.4 * random());
  }
  // Waiting past the deadline would only turn this error into a timeout.
  return wait < remainingMs ? Math.round(wait) : null;
}

/** Resolves after `ms`, or as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
