/** Coalesced: one run at a time, and one more run for the calls that came during it. */
import { describe, expect, it } from 'vitest';
import { Coalesced } from './coalesced.ts';

function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('Coalesced', () => {
  it('runs once more after a run during which it was called, not once per call', async () => {
    const gates = [gate(), gate()];
    let runs = 0;
    const task = new Coalesced(async () => {
      await gates[runs++]!.promise;
    });
    const first = task.run();
    const second = task.run();
    const third = task.run();
    expect(runs).toBe(1);
    gates[0]!.open();
    gates[1]!.open();
    await Promise.all([first, second, third]);
    expect(runs).toBe(2);
  });

  it('does not run again once stopped', async () => {
    const g = gate();
    let runs = 0;
    let stopped = false;
    const task = new Coalesced(
      async () => {
        runs++;
        await g.promise;
      },
      () => stopped,
    );
    const first = task.run();
    void task.run();
    stopped = true;
    g.open();
    await first;
    expect(runs).toBe(1);
  });
});
