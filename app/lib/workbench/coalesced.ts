/**
 * A task run one at a time: a call while it runs waits for that run and makes it run once more
 * after it (so the last call always sees a run that started after it), however many calls came.
 */
export class Coalesced {
  readonly #task: () => Promise<void>;
  readonly #stopped: () => boolean;
  #running: Promise<void> | null = null;
  #again = false;

  /** `stopped`: no further run once it says true (the owner was disposed). */
  constructor(task: () => Promise<void>, stopped: () => boolean = () => false) {
    this.#task = task;
    this.#stopped = stopped;
  }

  run(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      do {
        this.#again = false;
        await this.#task();
      } while (this.#again && !this.#stopped());
    })().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }
}
