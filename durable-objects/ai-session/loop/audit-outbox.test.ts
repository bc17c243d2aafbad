/** The audit outbox's retry schedule: doubling from the base, capped, and bounded in count. */
import { describe, expect, it } from 'vitest';
import { AUDIT_MAX_RETRIES, AUDIT_RETRY_BASE_MS, AUDIT_RETRY_MAX_MS, retryDelay } from './audit-outbox.ts';

describe('retryDelay', () => {
  it('doubles from the base after each failure and never waits longer than the cap', () => {
    expect(retryDelay(1)).toBe(AUDIT_RETRY_BASE_MS);
    expect(retryDelay(2)).toBe(2 * AUDIT_RETRY_BASE_MS);
    expect(retryDelay(3)).toBe(4 * AUDIT_RETRY_BASE_MS);
    expect(retryDelay(AUDIT_MAX_RETRIES)).toBe(AUDIT_RETRY_MAX_MS);
  });

  it('stops scheduling once the retries are used up (the rows stay for the next flush)', () => {
    expect(retryDelay(AUDIT_MAX_RETRIES + 1)).toBeNull();
  });
});
