import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../shared/api-error.ts';
import { CommentRate, commentsPerMinute } from './comment-rate.ts';

const PER_MINUTE = 30;

describe('CommentRate', () => {
  it('lets a burst through, refuses the next with how long to wait, and refills over time', () => {
    let now = 1_000_000;
    const rate = new CommentRate(PER_MINUTE, () => now);
    for (let i = 0; i < PER_MINUTE; i++) rate.take('u1');
    let refused: unknown;
    try {
      rate.take('u1');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).toBody()).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: 60 / PER_MINUTE });
    // Another person is not held back by the first.
    expect(() => rate.take('u2')).not.toThrow();
    now += (60_000 / PER_MINUTE) * 3;
    for (let i = 0; i < 3; i++) rate.take('u1');
    expect(() => rate.take('u1')).toThrow(ApiError);
  });

  it('reads the setting as a positive whole number, else 30 a minute', () => {
    expect(commentsPerMinute('120')).toBe(120);
    for (const bad of [undefined, '', '0', '-5', '2.5', 'lots']) expect(commentsPerMinute(bad)).toBe(30);
  });
});
