/**
 * Every kind of frame a client sends has a budget per socket (shared/protocol.ts FRAME_RATES),
 * through the real upgrade: a socket flooding `hello` (each replays the whole log), Yjs sync step 1
 * (each answers the whole draft) or `presence` (each was a broadcast to everyone) is closed with
 * 4429 RATE_LIMITED after its burst, the others carry on, and a client that behaves like the
 * Workbench (app/lib/workbench/) never comes near a limit. The two expensive kinds also have a
 * budget per person (PERSON_FRAME_RATES) that reconnecting does not refill, nor the object
 * hibernating or restarting, and that a few tabs reconnecting after network blips stay within.
 */
import * as encoding from 'lib0/encoding';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import { evictDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { FRAME_RATES, PERSON_FRAME_RATES } from '../../shared/protocol.ts';
import { STEP, WF, connect, stagedStepSession, type Watcher, stillLive } from './sessions.ts';
import { sessionObject } from './turns.ts';
import type { TestClient } from './client.ts';

const STEP_KEY = `step:${WF}/${STEP}`;

/** Sync step 1 with an empty document's state vector: "send me everything" (4 bytes). */
function wholeDraftRequest(): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 0);
  syncProtocol.writeSyncStep1(encoder, new Y.Doc());
  return encoding.toUint8Array(encoder);
}

/** Send `frame` up to `count` times, stopping once the socket is closed. */
function flood(watcher: Watcher, frame: (i: number) => string | Uint8Array, count: number): void {
  for (let i = 0; i < count && watcher.closed === null; i++) {
    try {
      watcher.socket.send(frame(i));
    } catch {
      return;
    }
  }
}

/** Binary sync step 2 frames received (answers to a step 1). */
function step2Answers(watcher: Watcher): number {
  return watcher.frames.filter((f) => f.kind === 'binary' && f.value[0] === 0 && f.value[1] === syncProtocol.messageYjsSyncStep2).length;
}

/** A staged session (a draft worth asking for) with a viewer and the owner connected. */
async function twoSockets() {
  const session = await stagedStepSession((markdown) => `${markdown}\nA line the draft adds.\n`);
  const viewer = await session.member('viewer');
  const v = await connect(viewer, session.base, session.sessionId);
  const o = await connect(session.owner, session.base, session.sessionId);
  await v.until(() => v.texts().find((m) => m.type === 'events' && m.replay), 'the viewer\'s replay');
  await o.until(() => o.texts().find((m) => m.type === 'events' && m.replay), 'the owner\'s replay');
  return { ...session, v, o };
}

describe('frame budgets per socket', () => {
  it('closes a socket that floods hello after its burst: the log is replayed a handful of times, not hundreds', async () => {
    const { v, o } = await twoSockets();
    const sent = FRAME_RATES.hello.burst * 50;
    flood(v, () => JSON.stringify({ type: 'hello', lastSeq: 0 }), sent);
    await v.until(() => v.closed, 'the flooding socket to close');
    expect(v.closed).toEqual({ code: 4429, reason: 'RATE_LIMITED' });
    expect(v.texts()).toContainEqual(expect.objectContaining({ type: 'error', code: 'RATE_LIMITED' }));
    // The connect's own hello spent one token; the flood got the rest of the burst (and what refilled meanwhile).
    const replays = v.texts().filter((m) => m.type === 'events' && m.replay && m.done).length;
    expect(replays).toBeLessThan(sent / 10);
    await stillLive(o, STEP_KEY);
    o.close();
  });

  it('closes a socket that floods sync step 1 after its burst: the whole draft is sent a handful of times, not hundreds', async () => {
    const { v, o } = await twoSockets();
    const sent = FRAME_RATES.syncStep1.burst * 50;
    flood(v, () => wholeDraftRequest(), sent);
    await v.until(() => v.closed, 'the flooding socket to close');
    expect(v.closed).toEqual({ code: 4429, reason: 'RATE_LIMITED' });
    expect(step2Answers(v)).toBeGreaterThan(0);
    expect(step2Answers(v)).toBeLessThan(sent / 10);
    await stillLive(o, STEP_KEY);
    o.close();
  });

  it('closes a socket that floods presence; the others receive a few dozen presence frames at most, and a repeated file none', async () => {
    const { v, o } = await twoSockets();
    const before = o.texts().filter((m) => m.type === 'presence').length;
    const fileOf = (m: any) => m.present.find((p: any) => p.file !== null)?.file ?? null;
    v.send({ type: 'presence', file: STEP_KEY });
    await o.until(() => o.texts().some((m) => m.type === 'presence' && fileOf(m) === STEP_KEY), 'the viewer on the step');
    // The same file again and again changes nothing, so nobody is told: only the move back to no file is.
    const mark = o.texts().length;
    for (let i = 0; i < 10; i++) v.send({ type: 'presence', file: STEP_KEY });
    v.send({ type: 'presence', file: null });
    const told = () => o.texts().slice(mark).filter((m) => m.type === 'presence');
    await o.until(() => told().at(-1)?.present.every((p: any) => p.file === null), 'the viewer back on no file');
    expect(told().map(fileOf)).toEqual([null]);

    const sent = 500;
    flood(v, (i) => JSON.stringify({ type: 'presence', file: i % 2 === 0 ? STEP_KEY : null }), sent);
    await v.until(() => v.closed, 'the flooding socket to close');
    expect(v.closed).toEqual({ code: 4429, reason: 'RATE_LIMITED' });
    await stillLive(o, `workflow:${WF}`);
    const broadcasts = o.texts().filter((m) => m.type === 'presence').length - before;
    expect(broadcasts).toBeLessThan(sent / 5);
    o.close();
  });

  it('never limits a client that behaves like the Workbench: a hello, presence as files open, the draft editor opened and closed, comments, a reconnect', async () => {
    const { owner, base, sessionId, o, v } = await twoSockets();
    // The Workbench says which file it looks at after each open and on each (re)connect.
    for (const file of [STEP_KEY, null, STEP_KEY, `workflow:${WF}`, STEP_KEY]) o.send({ type: 'presence', file });
    // Its draft editor asks for the draft each time it opens.
    for (let i = 0; i < FRAME_RATES.syncStep1.burst - 1; i++) o.socket.send(wholeDraftRequest());
    await o.until(() => step2Answers(o) >= FRAME_RATES.syncStep1.burst - 1, 'every draft request answered');
    // A comment thread's worth of comments on the socket.
    for (let i = 0; i < 10; i++) o.send({ type: 'comment', requestId: `c-${i}`, comment: { objectKey: STEP_KEY, line: 1, body: `note ${i}` } });
    await o.until(() => o.texts().filter((m) => m.type === 'ack').length === 10, 'ten comments acknowledged');
    // A reconnect is a new socket with its own hello (and a fresh budget).
    o.close();
    const again = await connect(owner, base, sessionId, 0);
    await again.until(() => again.texts().find((m) => m.type === 'events' && m.replay), 'the replay after the reconnect');
    await stillLive(again, STEP_KEY);
    expect(o.texts().some((m) => m.type === 'error')).toBe(false);
    for (const w of [again, v]) w.close();
  });
});

/** Replays finished (a `hello` answered) on `watcher`. */
function replays(watcher: Watcher): number {
  return watcher.texts().filter((m) => m.type === 'events' && m.replay && m.done).length;
}

/** What the person's budget of `kind` allows since `started`: its burst and what refilled meanwhile. */
function personAllows(kind: keyof typeof PERSON_FRAME_RATES, started: number): number {
  const { burst, perMinute } = PERSON_FRAME_RATES[kind];
  return burst + Math.ceil(((Date.now() - started) / 60_000) * perMinute);
}

describe('the expensive budgets per person', () => {
  /**
   * The attack: open a socket, spend its whole `kind` budget, close it, open the next. Returns the
   * answers it got in all and the socket that was refused (null if none was, in `rounds`).
   */
  async function reconnectLoop(send: (watcher: Watcher) => void, answers: (watcher: Watcher) => number, perSocket: number, again?: { staged: Awaited<ReturnType<typeof stagedStepSession>>; viewer: TestClient }) {
    const staged = again?.staged ?? (await stagedStepSession((markdown) => `${markdown}\nA line the draft adds.\n`));
    const { owner, base, sessionId, member } = staged;
    const viewer = again?.viewer ?? (await member('viewer'));
    const started = Date.now();
    let answered = 0;
    let refused: Watcher | null = null;
    for (let round = 0; round < 30 && refused === null; round++) {
      const w = await connect(viewer, base, sessionId, null);
      for (let i = 0; i < perSocket; i++) send(w);
      await w.until(() => w.closed ?? answers(w) === perSocket, 'every answer or the close');
      answered += answers(w);
      if (w.closed) refused = w;
      else w.close();
    }
    return { staged, viewer, owner, base, sessionId, started, answered, refused };
  }

  it('does not refill the hello budget when the object hibernates: after a restart the spent budget still applies', async () => {
    const hello = (w: Watcher) => w.send({ type: 'hello', lastSeq: 0 });
    const first = await reconnectLoop(hello, replays, FRAME_RATES.hello.burst);
    expect(first.refused?.closed).toEqual({ code: 4429, reason: 'RATE_LIMITED' });
    // A socket of someone else stays open through it, as a hibernating object's sockets do.
    const o = await connect(first.owner, first.base, first.sessionId);
    await o.until(() => replays(o) === 1, "the owner's replay");
    // The object forgets everything it held in memory, then wakes for the next frame.
    await evictDurableObject(sessionObject(first.sessionId));
    const again = await reconnectLoop(hello, replays, FRAME_RATES.hello.burst, first);
    expect(again.refused?.closed).toEqual({ code: 4429, reason: 'RATE_LIMITED' });
    // Both loops together got what the person's budget allows since the first: the restart gave nothing back.
    expect(first.answered + again.answered).toBeLessThanOrEqual(personAllows('hello', first.started));
    expect(again.answered).toBeLessThan(PERSON_FRAME_RATES.hello.burst);
    await stillLive(o, STEP_KEY);
    o.close();
  });

  it('does not refill the hello budget on reconnect: a member reconnecting in a loop gets a handful of replays, then 4429', async () => {
    const hello = (w: Watcher) => w.send({ type: 'hello', lastSeq: 0 });
    const { owner, base, sessionId, started, answered, refused } = await reconnectLoop(hello, replays, FRAME_RATES.hello.burst);
    expect(refused?.closed).toEqual({ code: 4429, reason: 'RATE_LIMITED' });
    expect(refused?.texts()).toContainEqual(expect.objectContaining({ type: 'error', code: 'RATE_LIMITED' }));
    expect(answered).toBeLessThanOrEqual(personAllows('hello', started));
    // Someone else's budget is their own.
    const o = await connect(owner, base, sessionId);
    await o.until(() => replays(o) === 1, 'the owner\'s replay');
    await stillLive(o, STEP_KEY);
    o.close();
  });

  it('does not refill the sync step 1 budget on reconnect: the whole draft a handful of times, then 4429', async () => {
    const step1 = (w: Watcher) => w.socket.send(wholeDraftRequest());
    const { owner, base, sessionId, started, answered, refused } = await reconnectLoop(step1, step2Answers, FRAME_RATES.syncStep1.burst);
    expect(refused?.closed).toEqual({ code: 4429, reason: 'RATE_LIMITED' });
    expect(answered).toBeGreaterThan(0);
    expect(answered).toBeLessThanOrEqual(personAllows('syncStep1', started));
    const o = await connect(owner, base, sessionId, null);
    o.socket.send(wholeDraftRequest());
    await o.until(() => step2Answers(o) === 1, 'the owner\'s draft');
    o.close();
  });

  it('lets a person with three tabs reconnect after three network blips: every replay and every draft answered', async () => {
    const { base, sessionId, member } = await stagedStepSession((markdown) => `${markdown}\nA line the draft adds.\n`);
    const viewer = await member('viewer');
    for (let blip = 0; blip <= 3; blip++) {
      const tabs = await Promise.all([0, 1, 2].map(() => connect(viewer, base, sessionId, 0)));
      for (const tab of tabs) tab.socket.send(wholeDraftRequest());
      for (const tab of tabs) await tab.until(() => replays(tab) === 1 && step2Answers(tab) === 1, 'the replay and the draft');
      for (const tab of tabs) {
        expect(tab.texts().filter((m) => m.type === 'error')).toEqual([]);
        expect(tab.closed).toBeNull();
        tab.close();
      }
    }
  });
});
