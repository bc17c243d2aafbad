// The silence limit of one model request: it aborts when nothing has arrived from the server for
// its whole span — no response headers after the request went out, or no byte of the answer after
// the last one (keep-alive comments such as LM Studio's `: ping` count: the server is alive). A slow
// but steady stream never trips it; the call's total deadline (provider.ts) bounds that one.

export class IdleWatch {
  readonly #controller = new AbortController();
  readonly #ms: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  /** Starts counting at once: the request is about to go out. */
  constructor(ms: number) {
    this.#ms = ms;
    this.touch();
  }

  /** Aborted once the server was silent for the whole span. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Something arrived: the span starts again. */
  readonly touch = (): void => {
    if (this.#stopped || this.#controller.signal.aborted) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#controller.abort(), this.#ms);
  };

  /** The request is over (answered, failed or aborted): no more counting. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }
}
