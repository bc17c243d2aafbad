/**
 * How often each socket may send each kind of frame (shared/protocol.ts FRAME_RATES): one token
 * bucket per socket and kind. The two expensive kinds (`hello` replays the log, sync step 1 answers
 * the draft) also draw on a bucket per person (PERSON_FRAME_RATES) that every socket of theirs on
 * this session shares and that outlives the socket, so closing and reopening sockets does not
 * refill it. The socket hub spends a token per frame and closes a socket whose bucket is empty
 * (4429 RATE_LIMITED). The buckets live in memory: hibernation forgets them, which at worst gives
 * a session that went quiet a fresh burst.
 */
import { FRAME_RATES, PERSON_FRAME_RATES, type FrameKind } from '../../../shared/protocol.ts';

/** What a socket closed for flooding is told, per kind (a plain sentence; the code is RATE_LIMITED). */
export const RATE_LIMIT_MESSAGES: Record<FrameKind, string> = {
  hello: 'Too many resume requests (hello) on one connection; the connection was closed.',
  syncStep1: 'Too many requests for the whole draft on one connection; the connection was closed.',
  presence: 'Too many presence updates; the connection was closed.',
  awareness: 'Too many cursor updates; the connection was closed.',
  update: 'Too many document updates; the connection was closed.',
  other: 'Too many messages on one connection; the connection was closed.',
};

/** The same when the person's budget is spent (across their connections, reconnects included). */
export const PERSON_RATE_LIMIT_MESSAGES: Record<keyof typeof PERSON_FRAME_RATES, string> = {
  hello: 'Too many reconnects to this session in a short time; the connection was closed. Wait a minute, then reload.',
  syncStep1: 'Too many requests for the whole draft from your connections to this session; the connection was closed. Wait a minute, then reload.',
};

interface Bucket {
  tokens: number;
  at: number;
}

type Rate = { readonly burst: number; readonly perMinute: number };

function personRate(kind: FrameKind): Rate | undefined {
  return kind in PERSON_FRAME_RATES ? PERSON_FRAME_RATES[kind as keyof typeof PERSON_FRAME_RATES] : undefined;
}

export class FrameRates {
  /** Keyed `s:<socket id>` or `p:<user id>`, then by kind. */
  readonly #buckets = new Map<string, Map<FrameKind, Bucket>>();
  /** The person's budgets grow with the sockets they may open (PERSON_FRAME_RATES is for MAX_SOCKETS_PER_PERSON). */
  readonly #personScale: number;

  constructor(personScale = 1) {
    this.#personScale = Math.max(1, personScale);
  }

  /** Take one token of `kind` for the socket and, for an expensive kind, its person: null when taken, else why not. */
  take(socketId: string, userId: string, kind: FrameKind, now = Date.now()): string | null {
    if (!this.#spend(`s:${socketId}`, kind, FRAME_RATES[kind], now)) return RATE_LIMIT_MESSAGES[kind];
    const person = this.#personRate(kind);
    if (person && !this.#spend(`p:${userId}`, kind, person, now)) return PERSON_RATE_LIMIT_MESSAGES[kind as keyof typeof PERSON_FRAME_RATES];
    return null;
  }

  #personRate(kind: FrameKind): Rate | undefined {
    const rate = personRate(kind);
    return rate && { burst: rate.burst * this.#personScale, perMinute: rate.perMinute * this.#personScale };
  }

  #spend(key: string, kind: FrameKind, { burst, perMinute }: Rate, now: number): boolean {
    let buckets = this.#buckets.get(key);
    if (!buckets) this.#buckets.set(key, (buckets = new Map()));
    const bucket = buckets.get(kind) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 60_000) * perMinute);
    bucket.at = now;
    buckets.set(kind, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  /** When the socket's last frame was counted (ms), or null when none was since this instance woke. */
  heardAt(socketId: string): number | null {
    const buckets = this.#buckets.get(`s:${socketId}`);
    return buckets ? Math.max(...[...buckets.values()].map((b) => b.at)) : null;
  }

  /** A socket closed: its own buckets go; its person's stay until they have refilled (a full bucket is the same as none). */
  forget(socketId: string, userId: string | null, now = Date.now()): void {
    this.#buckets.delete(`s:${socketId}`);
    const person = userId === null ? undefined : this.#buckets.get(`p:${userId}`);
    if (!person) return;
    for (const [kind, bucket] of person) {
      const rate = this.#personRate(kind);
      if (!rate || bucket.tokens + ((now - bucket.at) / 60_000) * rate.perMinute >= rate.burst) person.delete(kind);
    }
    if (person.size === 0) this.#buckets.delete(`p:${userId}`);
  }
}
