/**
 * Streams of assistant text arrive a few characters at a time; every viewer gets them as
 * `assistant.delta` events coalesced to about one per 50 ms, so the event log and the sockets
 * carry tens of events per answer, not thousands.
 */
export const DELTA_INTERVAL_MS = 50;

export class DeltaCoalescer {
  readonly #send: (text: string) => void;
  readonly #intervalMs: number;
  #pending = '';
  #lastSent = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(send: (text: string) => void, intervalMs = DELTA_INTERVAL_MS) {
    this.#send = send;
    this.#intervalMs = intervalMs;
  }

  push(text: string): void {
    if (!text) return;
    this.#pending += text;
    const wait = this.#lastSent + this.#intervalMs - Date.now();
    if (wait <= 0) {
      this.flush();
    } else if (this.#timer === null) {
      // The tail of a burst must not wait for the next chunk, which may be seconds away.
      this.#timer = setTimeout(() => this.flush(), wait);
    }
  }

  flush(): void {
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    if (!this.#pending) return;
    const text = this.#pending;
    this.#pending = '';
    this.#lastSent = Date.now();
    this.#send(text);
  }
}
