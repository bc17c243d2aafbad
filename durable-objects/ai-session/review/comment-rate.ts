/**
 * How fast one person may comment in a session, over HTTP and the socket alike: a token bucket per
 * person, in memory (a running session keeps its object awake; after a restart everyone starts with
 * a full bucket, which costs at most one more burst). A person types far slower than the bucket
 * refills; a script flooding the review (each comment is stored, sent to every viewer and its
 * @mentions written to D1) is refused with RATE_LIMITED and loses nothing it sent before.
 */
import { ApiError } from '../../../shared/api-error.ts';

/** Comments a person may send per minute (`AI_COMMENTS_PER_MINUTE`), all of them at once if they like. */
export const DEFAULT_COMMENTS_PER_MINUTE = 30;

/** The setting as a number: a positive whole number, else the default. */
export function commentsPerMinute(setting: string | undefined): number {
  const value = Number(setting);
  return Number.isInteger(value) && value > 0 ? value : DEFAULT_COMMENTS_PER_MINUTE;
}

export class CommentRate {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  readonly #burst: number;
  readonly #refillPerSecond: number;
  readonly #now: () => number;

  constructor(perMinute = DEFAULT_COMMENTS_PER_MINUTE, now: () => number = Date.now) {
    this.#burst = perMinute;
    this.#refillPerSecond = perMinute / 60;
    this.#now = now;
  }

  /** Take one comment for `userId`, or throw RATE_LIMITED with how long to wait. */
  take(userId: string): void {
    const now = this.#now();
    const bucket = this.#buckets.get(userId) ?? { tokens: this.#burst, at: now };
    bucket.tokens = Math.min(this.#burst, bucket.tokens + ((now - bucket.at) / 1000) * this.#refillPerSecond);
    bucket.at = now;
    this.#buckets.set(userId, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return;
    }
    const retryAfterSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / this.#refillPerSecond));
    throw new ApiError('RATE_LIMITED', {
      message: `You sent ${this.#burst} comments in a short time. Wait ${retryAfterSeconds} seconds before the next one.`,
      hints: ['Your earlier comments are saved; nothing was lost.'],
      headers: { 'retry-after': String(retryAfterSeconds) },
      extra: { retryAfterSeconds },
    });
  }
}
