import { describe, expect, it } from 'vitest';
import { FRAME_RATES, MAX_SOCKETS_PER_PERSON, PERSON_FRAME_RATES } from '../../../shared/protocol.ts';
import { FrameRates, PERSON_RATE_LIMIT_MESSAGES, RATE_LIMIT_MESSAGES } from './frame-rates.ts';
import { socketsPerPerson } from './admission.ts';
import type { SavedBudget } from './person-budgets.ts';

/** Take `kind` on `socket` until refused; how many were taken, and the refusal. */
function drain(rates: FrameRates, socket: string, kind: 'hello' | 'syncStep1' | 'presence', now: number) {
  let taken = 0;
  for (;;) {
    const refused = rates.take(socket, 'usr_a', kind, now);
    if (refused !== null) return { taken, refused };
    taken++;
  }
}

describe('frame budgets', () => {
  it("keeps a person's hello budget across their sockets and reconnects, not only each socket's", () => {
    const rates = new FrameRates();
    const now = 1_000_000;
    let replays = 0;
    let refused: string | null = null;
    for (let socket = 0; refused === null; socket++) {
      const round = drain(rates, `s${socket}`, 'hello', now);
      replays += round.taken;
      if (round.taken < FRAME_RATES.hello.burst) refused = round.refused;
      rates.forget(`s${socket}`, 'usr_a', now);
    }
    expect(replays).toBe(PERSON_FRAME_RATES.hello.burst);
    expect(refused).toBe(PERSON_RATE_LIMIT_MESSAGES.hello);
    // Someone else's budget is their own.
    expect(rates.take('s-other', 'usr_b', 'hello', now)).toBeNull();
    // A minute later the person has what refilled, no more.
    let later = 0;
    while (rates.take(`s-later-${later}`, 'usr_a', 'hello', now + 60_000) === null) later++;
    expect(later).toBe(PERSON_FRAME_RATES.hello.perMinute);
  });

  it("grows a person's budgets with the sockets they may open (AI_SOCKETS_PER_PERSON), never below the default", () => {
    const hellos = (rates: FrameRates) => {
      let total = 0;
      for (let socket = 0; ; socket++) {
        const { taken } = drain(rates, `s${socket}`, 'hello', 0);
        total += taken;
        if (taken < FRAME_RATES.hello.burst) return total;
      }
    };
    expect(hellos(new FrameRates(25))).toBe(PERSON_FRAME_RATES.hello.burst * 25);
    expect(hellos(new FrameRates(0.5))).toBe(PERSON_FRAME_RATES.hello.burst);
    expect(socketsPerPerson('200')).toBe(200);
    for (const setting of [undefined, '', '0', '-3', '2.5', 'many']) expect(socketsPerPerson(setting), String(setting)).toBe(MAX_SOCKETS_PER_PERSON);
  });

  it("refuses a socket past its own budget first, and keeps cheap kinds per socket only", () => {
    const rates = new FrameRates();
    expect(drain(rates, 's1', 'syncStep1', 0)).toEqual({ taken: FRAME_RATES.syncStep1.burst, refused: RATE_LIMIT_MESSAGES.syncStep1 });
    expect(drain(rates, 's1', 'presence', 0)).toEqual({ taken: FRAME_RATES.presence.burst, refused: RATE_LIMIT_MESSAGES.presence });
    // A new socket of the same person: a fresh presence budget.
    expect(drain(rates, 's2', 'presence', 0).taken).toBe(FRAME_RATES.presence.burst);
  });

  it("refills a person's budget over time while their sockets come and go", () => {
    const rates = new FrameRates();
    /** Hellos the person gets now, over as many new sockets as it takes. */
    const hellos = (now: number) => {
      let total = 0;
      for (let socket = 0; ; socket++) {
        const { taken } = drain(rates, `s${now}-${socket}`, 'hello', now);
        total += taken;
        rates.forget(`s${now}-${socket}`, 'usr_a', now);
        if (taken < FRAME_RATES.hello.burst) return total;
      }
    };
    expect(hellos(0)).toBe(PERSON_FRAME_RATES.hello.burst);
    expect(hellos(1)).toBe(0);
    expect(hellos(30_001)).toBe(PERSON_FRAME_RATES.hello.perMinute / 2);
    // Quiet long enough to refill completely: the whole burst again, never more.
    expect(hellos(30_001 + 3_600_000)).toBe(PERSON_FRAME_RATES.hello.burst);
  });
});

/** A BudgetStore in memory that counts its writes. */
function memoryStore() {
  const rows = new Map<string, SavedBudget>();
  const store = {
    writes: 0,
    rows,
    load: () => [...rows.values()].map((row) => ({ ...row })),
    save: (budget: SavedBudget) => {
      store.writes++;
      rows.set(`${budget.userId} ${budget.kind}`, { ...budget });
    },
    drop: (userId: string, kind: string) => {
      store.writes++;
      rows.delete(`${userId} ${kind}`);
    },
  };
  return store;
}

describe("a person's budgets across hibernation", () => {
  it('a new instance (the object woke) starts from the saved budget, not a full one', () => {
    const store = memoryStore();
    const now = 1_000_000;
    const before = new FrameRates(1, store);
    let socket = 0;
    while (drain(before, `s${socket}`, 'hello', now).taken === FRAME_RATES.hello.burst) socket++;
    const woken = new FrameRates(1, store);
    expect(woken.take('s-new', 'usr_a', 'hello', now)).toBe(PERSON_RATE_LIMIT_MESSAGES.hello);
    expect(woken.take('s-other', 'usr_b', 'hello', now)).toBeNull();
    // What refilled since is there, no more.
    let later = 0;
    while (woken.take(`s-later-${later}`, 'usr_a', 'hello', now + 60_000) === null) later++;
    expect(later).toBe(PERSON_FRAME_RATES.hello.perMinute);
  });

  it('writes at the marks only (full, half, empty): three writes for a whole burst, none for a socket budget', () => {
    const store = memoryStore();
    const rates = new FrameRates(1, store);
    const now = 1_000_000;
    for (let i = 0; i < FRAME_RATES.presence.burst; i++) rates.take('s0', 'usr_a', 'presence', now);
    expect(store.writes).toBe(0);
    let socket = 0;
    while (drain(rates, `s${socket}`, 'hello', now).taken === FRAME_RATES.hello.burst) socket++;
    expect(store.writes).toBe(3);
    expect(store.rows.get('usr_a hello')).toEqual({ userId: 'usr_a', kind: 'hello', tokens: 0, at: now });
  });

  it('loses less than half a burst with the memory, and drops the row once the bucket has refilled', () => {
    const store = memoryStore();
    const now = 1_000_000;
    const before = new FrameRates(1, store);
    const spent = PERSON_FRAME_RATES.hello.burst / 2 - 1;
    for (let i = 0; i < spent; i++) expect(before.take(`s${i}`, 'usr_a', 'hello', now)).toBeNull();
    const woken = new FrameRates(1, store);
    let left = 0;
    while (woken.take(`w${left}`, 'usr_a', 'hello', now) === null) left++;
    expect(left).toBeLessThan(PERSON_FRAME_RATES.hello.burst - spent + PERSON_FRAME_RATES.hello.burst / 2);
    const refilled = now + (PERSON_FRAME_RATES.hello.burst / PERSON_FRAME_RATES.hello.perMinute) * 60_000;
    woken.forget('w0', 'usr_a', refilled);
    expect(store.rows.size).toBe(0);
  });
});
