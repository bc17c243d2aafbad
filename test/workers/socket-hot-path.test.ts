/**
 * The work the session object does per event and per socket frame (issue 19, "against the floor"),
 * through the real upgrade and the real object: a live event reaches every subscribed socket
 * without re-reading any socket's attachment; a co-editor's keystroke costs its two storage writes
 * (the update, the debounce task) and no read; edits typed across more than the debounce still end
 * in one validated version; waiting keystrokes are written before any event is stored; a replay
 * sends the stored JSON of its events without parsing them.
 */
import { evictDurableObject, runInDurableObject } from 'cloudflare:test';
import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';
import { replayFrames } from '../../durable-objects/ai-session/events/replay.ts';
import { MAX_ENTRY_CHARS } from '../../durable-objects/ai-session/overlay/overlay-doc.ts';
import { REVALIDATE_DEBOUNCE_MS } from '../../durable-objects/ai-session/session.ts';
import { STEP, WF, YClient, connect, stagedStepSession, type Watcher } from './sessions.ts';
import { sessionObject } from './turns.ts';
import { recordSql } from './object-sql.ts';

const STEP_KEY = `step:${WF}/${STEP}`;

async function stagedSession() {
  const staged = await stagedStepSession((markdown) => `${markdown}\nStaged for co-editing.\n`);
  return { ...staged, object: sessionObject(staged.sessionId) };
}

interface Spy {
  statements: string[];
  attachmentReads: number;
}

/**
 * Count, inside the object's isolate, the SQL it runs and the raw attachment reads of its sockets
 * (what partyserver's `getConnections()` does per socket) until the returned `stop` is called.
 */
async function spyOn(object: ReturnType<typeof sessionObject>): Promise<{ spy: Spy; stop: () => Promise<void> }> {
  const spy: Spy = { statements: [], attachmentReads: 0 };
  await runInDurableObject(object, (_instance: AiSessionDurableObject, state) => {
    const restoreSql = recordSql(state.storage.sql, (statement) => spy.statements.push(statement));
    const proto = WebSocket.prototype as WebSocket & { deserializeAttachment(): unknown };
    const read = proto.deserializeAttachment;
    proto.deserializeAttachment = function (this: WebSocket) {
      spy.attachmentReads++;
      return read.call(this);
    };
    restore.set(object, () => {
      restoreSql();
      proto.deserializeAttachment = read;
    });
  });
  return { spy, stop: () => runInDurableObject(object, () => restore.get(object)?.()) };
}
const restore = new WeakMap<object, () => void>();

async function subscribed(watcher: Watcher): Promise<Watcher> {
  await watcher.until(() => watcher.texts().find((m) => m.type === 'events' && m.replay && m.done), 'the replay');
  return watcher;
}

/** An editor's Yjs client on the staged step, and a second socket that watches the same document. */
async function coEditing(s: Awaited<ReturnType<typeof stagedSession>>) {
  const editor = await s.member('editor');
  const typing = await connect(editor, s.base, s.sessionId);
  const watching = await connect(s.owner, s.base, s.sessionId);
  const y = new YClient(typing);
  const other = new YClient(watching);
  const text = await y.sync(() => y.text(STEP_KEY), 'the staged step at the editor');
  await other.sync(() => other.text(STEP_KEY), 'the staged step at the watcher');
  const type = async (marker: string) => {
    text.insert(0, marker);
    // Read what arrives without asking: the only frame the object receives is the keystroke.
    await watching.until(() => {
      other.pump();
      return other.text(STEP_KEY)?.toString().includes(marker);
    }, `${marker} at the watcher`);
  };
  return { typing, watching, type, close: () => [typing, watching].forEach((w) => w.close()) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the live channel per event and per frame', () => {
  it('sends a live event to every subscribed socket without re-reading any socket attachment or the session meta', async () => {
    const s = await stagedSession();
    const watchers = await Promise.all(Array.from({ length: 6 }, () => connect(s.owner, s.base, s.sessionId).then(subscribed)));
    const { spy, stop } = await spyOn(s.object);
    try {
      const body = 'A live comment for six sockets.';
      const posted = await s.owner.post(`${s.path}/comments`, { objectKey: STEP_KEY, line: 1, body });
      expect(posted.status).toBe(201);
      for (const w of watchers) await w.event('comment.added', (e) => e.payload.body === body);
      expect(spy.attachmentReads).toBe(0);
      expect(spy.statements.filter((q) => /\bFROM kv\b/.test(q))).toEqual([]);
      expect(spy.statements.filter((q) => q.startsWith('INSERT INTO events'))).toHaveLength(1);
    } finally {
      await stop();
      for (const w of watchers) w.close();
    }
  });

  it('relays a keystroke before any storage write, then appends a burst of keystrokes in one go (each update, one debounce move)', async () => {
    const s = await stagedSession();
    const c = await coEditing(s);
    try {
      // The first keystroke of this editor records them as an author of the draft and sets the alarm.
      await c.type('first ');
      // Hold the write-behind so what one flush writes can be counted.
      await runInDurableObject(s.object, (instance: AiSessionDurableObject) => {
        instance.core.persistEdits();
        instance.editFlushMs = 60_000;
      });
      const { spy, stop } = await spyOn(s.object);
      try {
        for (const marker of ['second ', 'third ', 'fourth ']) await c.type(marker);
        // One per frame received (partyserver's own check of the socket it came on), none per socket relayed to.
        expect(spy.attachmentReads).toBe(3);
        // Relayed to the watcher with no statement at all: nothing made the frame wait for a commit.
        expect(spy.statements).toEqual([]);
        const pending = await runInDurableObject(s.object, (instance: AiSessionDurableObject) => {
          const waiting = instance.core.overlay.pending;
          instance.core.persistEdits();
          return waiting;
        });
        expect(pending).toBe(3);
        expect(spy.statements).toEqual([
          'INSERT INTO y_updates (data) VALUES (?)',
          'INSERT INTO y_updates (data) VALUES (?)',
          'INSERT INTO y_updates (data) VALUES (?)',
          'INSERT INTO tasks (name, due_at) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET due_at = excluded.due_at',
        ]);
      } finally {
        await stop();
      }
    } finally {
      c.close();
    }
  });

  it('still has a keystroke relayed just before a restart', async () => {
    const s = await stagedSession();
    const c = await coEditing(s);
    try {
      // Long enough that the keystroke still waits in memory when the eviction starts (an eviction waits for the timer).
      await runInDurableObject(s.object, (instance: AiSessionDurableObject) => {
        instance.editFlushMs = 3_000;
      });
      await c.type('just before the restart ');
      const waiting = await runInDurableObject(s.object, (instance: AiSessionDurableObject) => instance.core.overlay.pending);
      expect(waiting).toBe(1);
      // The watcher has it and it is not written yet; the object is evicted (its sockets hibernate), then woken from storage.
      await evictDurableObject(s.object);
      const after = await runInDurableObject(s.object, (instance: AiSessionDurableObject) => instance.core.overlay.entry(STEP_KEY)!.content);
      expect(after.startsWith('just before the restart ')).toBe(true);
    } finally {
      c.close();
    }
  });

  it('appends waiting keystrokes before a server update of the draft, in order, and a compaction keeps them', async () => {
    const s = await stagedSession();
    const result = await runInDurableObject(s.object, (instance: AiSessionDurableObject, state) => {
      const overlay = instance.core.overlay;
      const count = () => state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM y_updates').one().n;
      const peer = new Y.Doc();
      Y.applyUpdate(peer, Y.encodeStateAsUpdate(overlay.doc));
      const text = peer.getMap<Y.Map<unknown>>('files').get(STEP_KEY)!.get('text') as Y.Text;
      const updates: Uint8Array[] = [];
      peer.on('update', (u: Uint8Array) => updates.push(u));
      text.insert(0, 'typed ');
      const typed = overlay.applyClientUpdate(updates[0]!, 'socket', false);
      const before = { rows: count(), pending: overlay.pending };
      // A server update (the AI stages another file): the keystroke is written first, then the stage.
      overlay.stage([{ key: 'asset:assets/other.md', deleted: false, content: 'other', baseRevision: 1, baseHash: null }], 'test');
      const afterStage = { rows: count(), pending: overlay.pending };
      text.insert(0, 'again ');
      overlay.applyClientUpdate(updates[1]!, 'socket', false);
      overlay.compact();
      return { typed, before, afterStage, pendingAfterCompact: overlay.pending, rowsAfterCompact: count() };
    });
    expect(result.typed).toEqual({ ok: true, changed: true });
    expect(result.before.pending).toBe(1);
    expect(result.afterStage).toEqual({ rows: result.before.rows + 2, pending: 0 });
    expect(result.pendingAfterCompact).toBe(0);
    expect(result.rowsAfterCompact).toBe(1);
    await evictDurableObject(s.object);
    const woken = await runInDurableObject(s.object, (instance: AiSessionDurableObject) => ({
      step: instance.core.overlay.entry(STEP_KEY)!.content,
      other: instance.core.overlay.entry('asset:assets/other.md')?.content,
    }));
    expect(woken.step.startsWith('again typed ')).toBe(true);
    expect(woken.other).toBe('other');
  });

  it('appends waiting keystrokes before an event is stored: a comment never outlives the line just typed', async () => {
    const s = await stagedSession();
    const c = await coEditing(s);
    try {
      // Long enough that the keystroke still waits in memory when the comment comes.
      await runInDurableObject(s.object, (instance: AiSessionDurableObject) => {
        instance.editFlushMs = 60_000;
      });
      await c.type('typed just before the comment ');
      const { spy, stop } = await spyOn(s.object);
      try {
        const comment = await s.owner.post(`${s.path}/comments`, { objectKey: STEP_KEY, line: 1, body: 'On the line just typed.' });
        expect(comment.status).toBe(201);
      } finally {
        await stop();
      }
      const keystroke = spy.statements.indexOf('INSERT INTO y_updates (data) VALUES (?)');
      const event = spy.statements.findIndex((statement) => statement.startsWith('INSERT INTO events'));
      expect(keystroke).toBeGreaterThanOrEqual(0);
      expect(event).toBeGreaterThan(keystroke);
      // Nothing waits in memory any more although the keystroke's own timer has not run.
      expect(await runInDurableObject(s.object, (instance: AiSessionDurableObject) => instance.core.overlay.pending)).toBe(0);
    } finally {
      c.close();
    }
  });

  it('still makes one validated version of edits typed across more than the debounce', async () => {
    const s = await stagedSession();
    const c = await coEditing(s);
    const viewer = await subscribed(c.watching);
    try {
      const before = viewer.events().filter((e) => e.type === 'change.staged').length;
      // The first alarm is due while the typing goes on: it must find the task not due and come back.
      await c.type('one ');
      await sleep(REVALIDATE_DEBOUNCE_MS / 2 + 100);
      await c.type('two ');
      await sleep(REVALIDATE_DEBOUNCE_MS / 2 + 100);
      await c.type('three ');
      const staged = await viewer.until(() => viewer.events().find((e) => e.type === 'change.staged' && e.payload.source === 'edit'), 'the edits\' version', 10_000);
      await viewer.event('change.validated', (e) => e.payload.version === staged.payload.version);
      const changes = (await s.owner.get(`${s.path}/changes`)).data.files as Array<{ key: string; after: string }>;
      expect(changes.find((f) => f.key === STEP_KEY)!.after.startsWith('three two one ')).toBe(true);
      expect(viewer.events().filter((e) => e.type === 'change.staged').length).toBe(before + 1);
    } finally {
      c.close();
    }
  });

  it('replays the stored JSON of each event as the frame text, without parsing it', async () => {
    const s = await stagedSession();
    for (const body of ['plain', 'ünïcödé “quotes” ✓', 'a "quoted" \\ backslash']) {
      const posted = await s.owner.post(`${s.path}/comments`, { objectKey: STEP_KEY, line: 1, body });
      expect(posted.status).toBe(201);
    }
    const result = await runInDurableObject(s.object, (instance: AiSessionDurableObject) => {
      const log = instance.core.log;
      const events = log.after(0, 1_000);
      const expected = JSON.stringify({ type: 'events', events, replay: true, done: true });
      const parse = JSON.parse;
      let parses = 0;
      JSON.parse = ((text: string, reviver?: (key: string, value: unknown) => unknown) => {
        parses++;
        return parse(text, reviver);
      }) as typeof JSON.parse;
      let frames: unknown[];
      try {
        frames = [...replayFrames(log, 0)];
      } finally {
        JSON.parse = parse;
      }
      return { frames, expected, parses, count: events.length };
    });
    expect(result.count).toBeGreaterThan(3);
    expect(result.frames).toEqual([result.expected]);
    expect(result.parses).toBe(0);
  });

  it('does not snapshot a 2 MB draft every 200 keystrokes, and a woken object still has every keystroke', async () => {
    const s = await stagedSession();
    const keys = [0, 1, 2, 3].map((i) => `asset:assets/big-${i}.md`);
    const big = 'A line of a large staged draft.\n'.repeat(Math.floor((MAX_ENTRY_CHARS - 1_024) / 32));
    const typed = await runInDurableObject(s.object, (instance: AiSessionDurableObject, state) => {
      const overlay = instance.core.overlay;
      overlay.stage(keys.map((key) => ({ key, deleted: false, content: big, baseRevision: 1, baseHash: null })), 'test');
      // The draft as it stands between compactions: one snapshot, then keystrokes.
      overlay.compact();
      const peer = new Y.Doc();
      Y.applyUpdate(peer, Y.encodeStateAsUpdate(overlay.doc));
      const rowsBefore = state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM y_updates').one().n;
      const text = peer.getMap<Y.Map<unknown>>('files').get(keys[1]!)!.get('text') as Y.Text;
      for (let i = 0; i < 250; i++) {
        const updates: Uint8Array[] = [];
        const listen = (u: Uint8Array) => updates.push(u);
        peer.on('update', listen);
        text.insert(i, 'k');
        peer.off('update', listen);
        const result = overlay.applyClientUpdate(Y.mergeUpdates(updates), 'socket', false);
        if (!result.ok || !result.changed) throw new Error(`keystroke ${i} refused: ${JSON.stringify(result)}`);
      }
      // Relayed keystrokes are appended behind the relay (overlay-doc.ts): append them now, as the timer would.
      overlay.flush();
      const rows = state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM y_updates').one().n;
      return { rowsBefore, rows, content: overlay.entry(keys[1]!)!.content };
    });
    // Every keystroke is its own row: no snapshot of the whole 2 MB document was written among them.
    expect(typed.rows).toBe(typed.rowsBefore + 250);
    expect(typed.content.startsWith('k'.repeat(250))).toBe(true);
    await evictDurableObject(s.object);
    const woken = await runInDurableObject(s.object, (instance: AiSessionDurableObject) => instance.core.overlay.entry(keys[1]!)!.content);
    expect(woken).toBe(typed.content);
  });
});
