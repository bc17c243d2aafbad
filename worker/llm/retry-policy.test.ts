import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProviderError, type ProviderFailureKind } from './provider-error.ts';
import { MAX_RETRY_WAIT_MS, parseRetryAfterMs, retryDelayMs, sleep } from './retry-policy.ts';

function error(kind: ProviderFailureKind, retryAfterMs?: number): ProviderError {
  return new ProviderError({ code: 'AI_PROVIDER_ERROR', kind, message: 'm', hints: [], retryable: true, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
}

const base = { responseStarted: false, attempts: 1, remainingMs: 60_000, random: () => 0.5 };

describe('parseRetryAfterMs', () => {
  it('reads seconds, an HTTP date and retry-after-ms', () => {
    expect(parseRetryAfterMs(new Headers({ 'retry-after': '2' }), 0)).toBe(2000);
    expect(parseRetryAfterMs(new Headers({ 'retry-after': '0.5' }), 0)).toBe(500);
    expect(parseRetryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), 0)).toBe(250);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now)).toBe(3000);
  });

  it('ignores what it cannot read', () => {
    expect(parseRetryAfterMs(new Headers({ 'retry-after': 'soon' }), 0)).toBeUndefined();
    expect(parseRetryAfterMs(new Headers(), 0)).toBeUndefined();
    expect(parseRetryAfterMs(undefined, 0)).toBeUndefined();
  });
});

describe('retryDelayMs', () => {
  it.each(['rate_limit', 'server', 'unreachable'] as const)('retries %s before the response started', (kind) => {
    expect(retryDelayMs({ ...base, error: error(kind) })).toBe(500);
  });

  it.each(['auth', 'not_found', 'bad_request', 'redirect', 'quota', 'timeout', 'malformed', 'stream_broken'] as const)('never retries %s', (kind) => {
    expect(retryDelayMs({ ...base, error: error(kind) })).toBeNull();
  });

  it('never retries once the response started', () => {
    expect(retryDelayMs({ ...base, responseStarted: true, error: error('server') })).toBeNull();
  });

  it('stops after two retries and doubles the backoff with jitter', () => {
    expect(retryDelayMs({ ...base, attempts: 2, error: error('server') })).toBe(1000);
    expect(retryDelayMs({ ...base, attempts: 2, random: () => 0, error: error('server') })).toBe(800);
    expect(retryDelayMs({ ...base, attempts: 3, error: error('server') })).toBeNull();
  });

  it('honours Retry-After up to the cap, and not beyond it or the deadline', () => {
    expect(retryDelayMs({ ...base, error: error('rate_limit', 3000) })).toBe(3000);
    expect(retryDelayMs({ ...base, error: error('rate_limit', MAX_RETRY_WAIT_MS + 1) })).toBeNull();
    expect(retryDelayMs({ ...base, remainingMs: 2000, error: error('rate_limit', 3000) })).toBeNull();
  });
});

describe('sleep', () => {
  // Fake timers: the 10 s timer can only fire when the test advances the clock.
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  /** Settles `promise` as far as microtasks go, without letting any timer run. */
  async function settled(promise: Promise<void>): Promise<boolean> {
    let done = false;
    void promise.then(() => (done = true));
    for (let i = 0; i < 5; i++) await Promise.resolve();
    return done;
  }

  it('resolves after the wait, not before', async () => {
    const waiting = sleep(10_000);
    await vi.advanceTimersByTimeAsync(9_999);
    expect(await settled(waiting)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(waiting)).toBe(true);
  });

  it('resolves early when the signal aborts, and clears its timer', async () => {
    const controller = new AbortController();
    const waiting = sleep(10_000, controller.signal);
    expect(await settled(waiting)).toBe(false);
    controller.abort();
    expect(await settled(waiting)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('resolves at once for a signal that already aborted', async () => {
    expect(await settled(sleep(10_000, AbortSignal.abort()))).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});
