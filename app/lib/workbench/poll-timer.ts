/** One pending timer at a time: scheduling again replaces the pending one (the workbench's look for a session). */
export class PollTimer {
  readonly #ms: number;
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(ms: number) {
    this.#ms = ms;
  }

  schedule(fn: () => void): void {
    this.clear();
    this.#timer = setTimeout(() => {
      this.#timer = null;
      fn();
    }, this.#ms);
  }

  clear(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
