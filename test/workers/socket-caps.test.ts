/**
 * One signed-in member cannot stall a shared session by opening sockets (SECURITY.md "Live
 * channel"), through the real upgrade and the real object: a person's socket past
 * MAX_SOCKETS_PER_PERSON replaces the one of theirs last heard from longest ago (a dead socket of
 * theirs must not lock them out; after hibernation too, from the time kept in its attachment), anyone's past the session's cap is closed at connect with 4432
 * SESSION_FULL and never shows in presence; and presence costs one send per socket per
 * interval however many people connect or move at once (it was the whole list to every socket on
 * every connect and every file change: quadratic), with the last state always going out.
 */
import { exports } from 'cloudflare:workers';
import { evictDurableObject, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';
import { CLOSE_CODES, MAX_SOCKETS_PER_PERSON, PRESENCE_INTERVAL_MS } from '../../shared/protocol.ts';
import { PING_FRAME } from '../../shared/protocol-limits.ts';
import { ORIGIN, type TestClient } from './client.ts';
import { Watcher, connect, stepSession, supportDeskProject } from './sessions.ts';
import { sessionObject } from './turns.ts';

/** An upgrade that does not wait for the server's hello (a refused socket gets none). */
async function open(client: TestClient, base: string, sessionId: string): Promise<Watcher> {
  const res = await exports.default.fetch(`${ORIGIN}${base}/ai/sessions/${sessionId}/ws`, {
    headers: { upgrade: 'websocket', origin: ORIGIN, cookie: client.cookie! },
  });
  if (res.status !== 101 || !res.webSocket) throw new Error(`upgrade failed: ${res.status} ${await res.text()}`);
  res.webSocket.accept();
  return new Watcher(res.webSocket);
}

async function session() {
  const project = await supportDeskProject();
  const sessionId = await stepSession(project.owner, project.base);
  return { ...project, sessionId };
}

/** The latest presence list `watcher` received (empty before the first). */
function present(watcher: Watcher): Array<{ connectionId: string; userId: string; file: string | null }> {
  return watcher.texts().findLast((m) => m.type === 'presence')?.present ?? [];
}

function presenceFrames(watcher: Watcher): number {
  return watcher.texts().filter((m) => m.type === 'presence').length;
}

describe('open sockets per person and per session', () => {
  it(`at ${MAX_SOCKETS_PER_PERSON} sockets of a person, their next one replaces the one they were last heard on (4432 SOCKET_REPLACED), never another person's`, async () => {
    const { owner, base, sessionId, member } = await session();
    const viewer = await member('viewer');
    const owners = await connect(owner, base, sessionId);
    const mine = await Promise.all(Array.from({ length: MAX_SOCKETS_PER_PERSON }, () => connect(viewer, base, sessionId)));
    const viewerSockets = () => present(owners).filter((p) => p.userId === viewer.userId);
    await owners.until(() => viewerSockets().length === MAX_SOCKETS_PER_PERSON, 'every viewer socket in presence');

    // Signs of life after every hello was answered (and a few ms later, so none shares a hello's
    // millisecond): the oldest socket sends only the keep-alive (the platform answers it, the object
    // does not wake), the others open a file; the second stays silent, as a dead one would.
    for (const w of mine) await w.until(() => w.texts().find((m) => m.type === 'events' && m.done), 'the replay');
    await new Promise((resolve) => setTimeout(resolve, 10));
    const silent = mine[1]!;
    mine[0]!.socket.send(PING_FRAME);
    await mine[0]!.until(() => mine[0]!.texts().some((m) => m.type === 'pong'), 'the pong');
    mine.forEach((w, i) => i > 1 && w.send({ type: 'presence', file: `asset:tab-${i}.md` }));
    await owners.until(() => viewerSockets().filter((p) => p.file !== null).length === MAX_SOCKETS_PER_PERSON - 2, 'the files in presence');

    const newest = await open(viewer, base, sessionId);
    await silent.until(() => silent.closed, 'the silent socket to be replaced');
    expect(silent.closed).toEqual({ code: CLOSE_CODES.TOO_MANY_SOCKETS, reason: 'SOCKET_REPLACED' });
    expect(silent.texts().at(-1)).toEqual(expect.objectContaining({ type: 'error', code: 'SOCKET_REPLACED' }));
    await newest.until(() => newest.texts().find((m) => m.type === 'hello'), 'the new socket\'s hello');
    newest.send({ type: 'hello', lastSeq: 0 });
    newest.send({ type: 'presence', file: 'asset:newest.md' });
    // In presence: the newest socket on its file, the six on theirs, the pinging one on none; the silent one gone.
    const files = () => viewerSockets().map((p) => p.file ?? 'none').sort();
    const expected = ['asset:newest.md', ...mine.slice(2).map((_, i) => `asset:tab-${i + 2}.md`), 'none'].sort();
    await owners.until(() => JSON.stringify(files()) === JSON.stringify(expected) && files(), 'the replaced socket gone from presence');
    expect(newest.closed).toBeNull();
    expect(mine.filter((w) => w !== silent).every((w) => w.closed === null)).toBe(true);

    // Another person is not held to the viewer's cap, and their sockets are never the ones replaced.
    const second = await connect(owner, base, sessionId);
    await owners.until(() => present(owners).length === MAX_SOCKETS_PER_PERSON + 2, 'the owner\'s second socket in presence');
    expect([owners.closed, second.closed]).toEqual([null, null]);
    for (const w of [owners, second, newest, ...mine]) w.close();
  });

  it('after the object hibernates, still replaces the socket last heard from longest ago (its last frame is in the attachment), not the oldest one', async () => {
    const { base, sessionId, member } = await session();
    const viewer = await member('viewer');
    const object = sessionObject(sessionId);
    // Every frame moves the kept time here (HEARD_STEP_MS in production: the choice is right to within it).
    await runInDurableObject(object, (instance: AiSessionDurableObject) => {
      instance.hub.limits.heardStepMs = 0;
    });
    const mine: Watcher[] = [];
    for (let i = 0; i < MAX_SOCKETS_PER_PERSON; i++) {
      const w = await connect(viewer, base, sessionId);
      await w.until(() => w.texts().find((m) => m.type === 'events' && m.done), 'the replay');
      mine.push(w);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // The first socket, opened before all the others, is the one in use: it opens a file last.
    const used = mine[0]!;
    used.send({ type: 'presence', file: 'asset:in-use.md' });
    await mine[1]!.until(() => present(mine[1]!).some((p) => p.file === 'asset:in-use.md'), 'the file in presence');
    // The object forgets what it held in memory (the frame times among it); the sockets stay open.
    await evictDurableObject(object);
    const newest = await open(viewer, base, sessionId);
    await newest.until(() => newest.texts().find((m) => m.type === 'hello'), "the new socket's hello");
    const quiet = mine[1]!;
    await quiet.until(() => quiet.closed, 'the socket heard from longest ago to be replaced');
    expect(quiet.closed).toEqual({ code: CLOSE_CODES.TOO_MANY_SOCKETS, reason: 'SOCKET_REPLACED' });
    expect(used.closed).toBeNull();
    expect(mine.filter((w) => w !== quiet).every((w) => w.closed === null)).toBe(true);
    for (const w of [newest, ...mine]) w.close();
  });

  it('closes any socket past the session\'s cap at connect (4432 SESSION_FULL), whoever opens it', async () => {
    const { owner, base, sessionId, member } = await session();
    const editor = await member('editor');
    const viewer = await member('viewer');
    const sockets = [await connect(owner, base, sessionId), await connect(editor, base, sessionId), await connect(viewer, base, sessionId)];
    // The default (MAX_SOCKETS_PER_SESSION) takes more people than a test registers; the check is the same.
    await runInDurableObject(sessionObject(sessionId), (instance: AiSessionDurableObject) => {
      instance.hub.limits.perSession = 3;
    });
    const refused = await open(editor, base, sessionId);
    await refused.until(() => refused.closed, 'the fourth socket to close');
    expect(refused.closed).toEqual({ code: CLOSE_CODES.TOO_MANY_SOCKETS, reason: 'SESSION_FULL' });
    expect(refused.texts()).toEqual([expect.objectContaining({ type: 'error', code: 'SESSION_FULL' })]);
    sockets[2]!.close();
    await sockets[0]!.until(() => present(sockets[0]!).length === 2, 'the viewer gone from presence');
    const admitted = await connect(editor, base, sessionId);
    expect(admitted.closed).toBeNull();
    for (const w of [...sockets, admitted]) w.close();
  });
});

describe('presence under a burst', () => {
  /**
   * At most one presence broadcast per interval: in `elapsedMs`, a socket subscribed all along
   * hears at most one per interval begun, and one more at the edge.
   */
  const atMost = (elapsedMs: number) => Math.floor(elapsedMs / PRESENCE_INTERVAL_MS) + 2;

  it('sends one presence list per socket per interval while many sockets connect and move, never one per change, and the last state goes out', async () => {
    const { owner, base, sessionId, member } = await session();
    const people = [owner, await member('editor'), await member('viewer')];
    // A socket subscribed before the burst hears every broadcast.
    const watcher = await connect(owner, base, sessionId);
    await watcher.until(() => presenceFrames(watcher) > 0, 'the watcher\'s own presence');
    const total = people.length * MAX_SOCKETS_PER_PERSON;

    // The connects: the list grew by one each time, and went to everyone each time.
    let before = presenceFrames(watcher);
    let started = Date.now();
    const sockets = [
      watcher,
      ...(await Promise.all(
        people.flatMap((person, p) => Array.from({ length: MAX_SOCKETS_PER_PERSON - (p === 0 ? 1 : 0) }, () => connect(person, base, sessionId))),
      )),
    ];
    await watcher.until(() => present(watcher).length === total, `presence of ${total} sockets`);
    const connectsHeard = presenceFrames(watcher) - before;
    expect(connectsHeard).toBeLessThanOrEqual(atMost(Date.now() - started));

    // The moves: every socket opens a file, five times over; each is a change of everyone's list.
    before = presenceFrames(watcher);
    started = Date.now();
    const rounds = 5;
    for (let round = 1; round <= rounds; round++) sockets.forEach((s, i) => s.send({ type: 'presence', file: `asset:round-${round}/socket-${i}.md` }));
    // The last state goes out: every socket on its last file, as every subscribed socket hears it.
    const last = (w: Watcher) => present(w).length === total && present(w).every((p) => p.file?.startsWith(`asset:round-${rounds}/`));
    for (const s of sockets) await s.until(() => last(s), 'everyone on their last file');
    const movesHeard = presenceFrames(watcher) - before;
    expect(movesHeard).toBeLessThanOrEqual(atMost(Date.now() - started));
    expect(sockets.every((s) => s.closed === null)).toBe(true);
    for (const s of sockets) s.close();
  });
});
