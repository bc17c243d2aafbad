/**
 * How often each socket may send each kind of frame (shared/protocol.ts FRAME_RATES): one token
 * bucket per socket and kind. The socket hub spends a token per frame and closes a socket whose
 * bucket is empty (4429 RATE_LIMITED), as it always did for awareness floods. The buckets live in
 * memory: hibernation forgets them, which at worst gives a socket that went quiet a fresh burst.
 */
import { FRAME_RATES, type FrameKind } from '../../../shared/protocol.ts';

/** What a socket closed for flooding is told, per kind (a plain sentence; the code is RATE_LIMITED). */
export const RATE_LIMIT_MESSAGES: Record<FrameKind, string> = {
  hello: 'Too many resume requests (hello) on one connection; the connection was closed.',
  syncStep1: 'Too many requests for the whole draft on one connection; the connection was closed.',
  presence: 'Too many presence updates; the connection was closed.',
  awareness: 'Too many cursor updates; the connection was closed.',
  update: 'Too many document updates; the connection was closed.',
  other: 'Too many messages on one connection; the connection was closed.',
};

interface Bucket {
  tokens: number;
  at: number;
}

export class FrameRates {
  readonly #buckets = new Map<string, Map<FrameKind, Bucket>>();

  /** Take one token of `kind` for `socketId`; false when that bucket is empty. */
  take(socketId: string, kind: FrameKind, now = Date.now()): boolean {
    const { burst, perMinute } = FRAME_RATES[kind];
    let buckets = this.#buckets.get(socketId);
    if (!buckets) this.#buckets.set(socketId, (buckets = new Map()));
    const bucket = buckets.get(kind) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 60_000) * perMinute);
    bucket.at = now;
    buckets.set(kind, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  forget(socketId: string): void {
    this.#buckets.delete(socketId);
  }
}
