// The silence limit of one model request: it aborts when nothing has arrived from the server for
// its whole span — no response headers after the request went out, or no byte of the answer after
// the last one (keep-alive comments such as LM Studio's `: ping` count: the server is alive). A slow
// but steady stream never trips it; the call's total deadline (provider.ts) bounds that one.

export class IdleWatch {
  readonly #controller = new AbortController();
  readonly #ms: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  /** When something last arrived. A chunk only notes the time; the one timer looks at it when it fires. */
  #last = Date.now();

  /** Starts counting at once: the request is about to go out. */
  constructor(ms: number) {
    this.#ms = ms;
    this.#arm(ms);
  }

  /** Aborted once the server was silent for the whole span. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Something arrived: the span starts again (no timer is touched per chunk). */
  readonly touch = (): void => {
    this.#last = Date.now();
  };

  /** Wake after `delay`; abort if the silence by then is the whole span, else wait out the rest of it. */
  #arm(delay: number): void {
    this.#timer = setTimeout(() => {
      if (this.#stopped) return;
      const silent = Date.now() - this.#last;
      if (silent >= this.#ms) this.#controller.abort();
      else this.#arm(this.#ms - silent);
    }, delay);
  }

  /** The request is over (answered, failed or aborted): no more counting. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }
}
