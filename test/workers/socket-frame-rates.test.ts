/**
 * Every kind of frame a client sends has a budget per socket (shared/protocol.ts FRAME_RATES),
 * through the real upgrade: a socket flooding `hello` (each replays the whole log), Yjs sync step 1
 * (each answers the whole draft) or `presence` (each was a broadcast to everyone) is closed with
 * 4429 RATE_LIMITED after its burst, the others carry on, and a client that behaves like the
 * Workbench (app/lib/workbench/) never comes near a limit.
 */
import * as encoding from 'lib0/encoding';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { FRAME_RATES } from '../../shared/protocol.ts';
import { STEP, WF, connect, stagedStepSession, type Watcher, stillLive } from './sessions.ts';

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

