/**
 * A value recomputed a moment after its inputs stop changing: the editors' live validation runs
 * once typing pauses, not on every keystroke. `useDebounced` cancels the pending run when the
 * component that made it goes away.
 */
export class Debounced<T> {
  #value: T;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #delay: number;

  constructor(initial: T, delayMs: number) {
    this.#value = $state.raw(initial);
    this.#delay = delayMs;
  }

  get value(): T {
    return this.#value;
  }

  /** Computes the value after the delay, replacing any computation still waiting. */
  schedule(compute: () => T): void {
    this.cancel();
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#value = compute();
    }, this.#delay);
  }

  cancel(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  reset(value: T): void {
    this.cancel();
    this.#value = value;
  }
}

/** A `Debounced` owned by the calling component (call it while the component initialises). */
export function useDebounced<T>(initial: T, delayMs: number): Debounced<T> {
  const debounced = new Debounced(initial, delayMs);
  $effect(() => () => debounced.cancel());
  return debounced;
}
