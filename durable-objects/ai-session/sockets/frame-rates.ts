/**
 * How often each socket may send each kind of frame (shared/protocol.ts FRAME_RATES): one token
 * bucket per socket and kind. The two expensive kinds (`hello` replays the log, sync step 1 answers
 * the draft) also draw on a bucket per person (PERSON_FRAME_RATES) that every socket of theirs on
 * this session shares and that outlives the socket, so closing and reopening sockets does not
 * refill it. The socket hub spends a token per frame and closes a socket whose bucket is empty
 * (4429 RATE_LIMITED). A socket's buckets live in memory (hibernation forgets them, which at worst
 * gives a socket that went quiet a fresh burst of its own). A person's are also saved
 * (person-budgets.ts) at their marks — the first draw from a full bucket, the draw that takes it to
 * half, the one that empties it — so hibernation cannot refill them, at a few writes per burst and
 * never one per frame: what is lost with the memory is less than half a burst.
 */
import { FRAME_RATES, PERSON_FRAME_RATES, type FrameKind } from '../../../shared/protocol.ts';
import type { BudgetStore } from './person-budgets.ts';

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
  /** Where the person buckets are saved (none: memory only); read once, on the first person draw. */
  readonly #store: BudgetStore | null;
  #loaded = false;
  /** `<user id> <kind>` of the person buckets that have a saved row. */
  readonly #saved = new Set<string>();

  constructor(personScale = 1, store: BudgetStore | null = null) {
    this.#personScale = Math.max(1, personScale);
    this.#store = store;
  }

  /** Take one token of `kind` for the socket and, for an expensive kind, its person: null when taken, else why not. */
  take(socketId: string, userId: string, kind: FrameKind, now = Date.now()): string | null {
    if (!this.#spend(`s:${socketId}`, kind, FRAME_RATES[kind], now)) return RATE_LIMIT_MESSAGES[kind];
    const person = this.#personRate(kind);
    if (!person) return null;
    this.#load();
    if (!this.#spend(`p:${userId}`, kind, person, now, (tokens) => this.#save(userId, kind, tokens, now))) {
      return PERSON_RATE_LIMIT_MESSAGES[kind as keyof typeof PERSON_FRAME_RATES];
    }
    return null;
  }

  /** The saved person buckets, once per instance (a woken object starts from them). */
  #load(): void {
    if (this.#loaded || !this.#store) return;
    this.#loaded = true;
    for (const { userId, kind, tokens, at } of this.#store.load()) {
      const key = `p:${userId}`;
      let buckets = this.#buckets.get(key);
      if (!buckets) this.#buckets.set(key, (buckets = new Map()));
      if (!buckets.has(kind)) buckets.set(kind, { tokens, at });
      this.#saved.add(`${userId} ${kind}`);
    }
  }

  #save(userId: string, kind: FrameKind, tokens: number, at: number): void {
    if (!this.#store) return;
    this.#store.save({ userId, kind, tokens, at });
    this.#saved.add(`${userId} ${kind}`);
  }

  #personRate(kind: FrameKind): Rate | undefined {
    const rate = personRate(kind);
    return rate && { burst: rate.burst * this.#personScale, perMinute: rate.perMinute * this.#personScale };
  }

  /** Spend one token; `mark` is called with the tokens left when this draw passed a mark (full, half, empty). */
  #spend(key: string, kind: FrameKind, { burst, perMinute }: Rate, now: number, mark?: (tokens: number) => void): boolean {
    let buckets = this.#buckets.get(key);
    if (!buckets) this.#buckets.set(key, (buckets = new Map()));
    const bucket = buckets.get(kind) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 60_000) * perMinute);
    bucket.at = now;
    buckets.set(kind, bucket);
    if (bucket.tokens < 1) return false;
    const before = bucket.tokens;
    bucket.tokens -= 1;
    if (mark && (before >= burst || (before > burst / 2 && bucket.tokens <= burst / 2) || bucket.tokens < 1)) mark(bucket.tokens);
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
      if (rate && bucket.tokens + ((now - bucket.at) / 60_000) * rate.perMinute < rate.burst) continue;
      person.delete(kind);
      if (this.#saved.delete(`${userId} ${kind}`)) this.#store?.drop(userId!, kind);
    }
    if (person.size === 0) this.#buckets.delete(`p:${userId}`);
  }
}
