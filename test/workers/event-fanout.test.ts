/**
 * What one event costs on its way to many sockets (issue 19, fan-out): a comment POST asks D1 once
 * (who is asking) and nothing more, the object writes the comment's rows and one event row and
 * reads nothing, the event is encoded to JSON once however many sockets receive it, the object sends
 * down a kept list of subscribed sockets without checking each one per event, and the live frame
 * carries the same event text a resume replay sends for it.
 */
import { exports } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';
import { replayFrames } from '../../durable-objects/ai-session/events/replay.ts';
import { d1RoundTripLog, d1RoundTrips, resetD1RoundTrips } from '../../worker/db/instrumented-d1.ts';
import { ORIGIN } from './client.ts';
import { STEP, WF, connect, currentStep, stepChangeSet, stepSession, supportDeskProject, type Watcher } from './sessions.ts';
import { sessionObject } from './turns.ts';
import { recordSql } from './object-sql.ts';

const STEP_KEY = `step:${WF}/${STEP}`;
const SOCKETS = 6;

async function stagedSession() {
  const project = await supportDeskProject();
  const sessionId = await stepSession(project.owner, project.base);
  const path = `${project.base}/ai/sessions/${sessionId}`;
  const step = await currentStep(project.owner, project.base);
  const staged = await project.owner.post(`${path}/stage`, { changeSet: stepChangeSet(`${step.markdown}\nStaged for review.\n`) });
  if (staged.status !== 200) throw new Error(`stage failed: ${JSON.stringify(staged.error)}`);
  return { ...project, sessionId, path, object: sessionObject(sessionId) };
}

async function subscribed(watcher: Watcher): Promise<Watcher> {
  await watcher.until(() => watcher.texts().find((m) => m.type === 'events' && m.replay && m.done), 'the replay');
  return watcher;
}

interface Spy {
  statements: string[];
  /** JSON.stringify calls (anywhere in the isolate) whose text carries the comment's body. */
  encodings: number;
  /** Raw texts of the live frames the object sent. */
  frames: string[];
}

const restore = new WeakMap<object, () => void>();
let restoreReadyState: (() => unknown) | undefined;

/** Count the object's SQL and every JSON encoding of `marker`, and keep the frames it sends, until `stop`. */
async function spyOn(object: ReturnType<typeof sessionObject>, marker: string): Promise<{ spy: Spy; stop: () => Promise<void> }> {
  const spy: Spy = { statements: [], encodings: 0, frames: [] };
  await runInDurableObject(object, (_instance: AiSessionDurableObject, state) => {
    const restoreSql = recordSql(state.storage.sql, (statement) => spy.statements.push(statement));
    const stringify = JSON.stringify;
    JSON.stringify = function (...args: Parameters<typeof JSON.stringify>) {
      const text = stringify.apply(JSON, args);
      if (typeof text === 'string' && text.includes(marker)) spy.encodings++;
      return text;
    } as typeof JSON.stringify;
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (this: WebSocket, data: string | ArrayBuffer | ArrayBufferView) {
      if (typeof data === 'string' && data.includes(marker)) spy.frames.push(data);
      return send.call(this, data);
    };
    restore.set(object, () => {
      restoreSql();
      JSON.stringify = stringify;
      WebSocket.prototype.send = send;
    });
  });
  return { spy, stop: () => runInDurableObject(object, () => restore.get(object)?.()) };
}

describe('one event to many sockets', () => {
  it('costs a comment one D1 round trip, its rows and one event row, and one JSON encoding for six sockets', async () => {
    const s = await stagedSession();
    const watchers = await Promise.all(Array.from({ length: SOCKETS }, () => connect(s.owner, s.base, s.sessionId).then(subscribed)));
    const body = `A comment for ${SOCKETS} sockets (${crypto.randomUUID()}).`;
    // Written before the spy starts: the test's own encoding of the request is not the product's.
    const request = JSON.stringify({ objectKey: STEP_KEY, line: 1, body });
    const { spy, stop } = await spyOn(s.object, body);
    resetD1RoundTrips();
    try {
      const res = await exports.default.fetch(`${ORIGIN}${s.path}/comments`, {
        method: 'POST',
        headers: { origin: ORIGIN, cookie: s.owner.cookie!, 'content-type': 'application/json' },
        body: request,
      });
      expect(res.status).toBe(201);
      for (const w of watchers) await w.event('comment.added', (e) => e.payload.body === body);
      // Who is asking, and nothing else on D1 (no mention in the body: no members read, no notice written).
      expect(d1RoundTrips(), d1RoundTripLog().join('\n')).toBe(1);
      expect(spy.statements.map((q) => q.split(' (')[0])).toEqual([
        'INSERT INTO threads',
        'INSERT INTO thread_anchors',
        'INSERT INTO comments',
        'INSERT INTO events',
      ]);
      // Before: the payload for the row, then the whole event again for the frame.
      expect(spy.encodings).toBe(1);
      expect(spy.frames).toHaveLength(SOCKETS);
      expect(new Set(spy.frames).size).toBe(1);
    } finally {
      await stop();
      for (const w of watchers) w.close();
    }
  });

  it('walks no socket state per event: one send per subscribed socket, the list kept until a socket joins, subscribes or leaves', async () => {
    const s = await stagedSession();
    const watchers = await Promise.all(Array.from({ length: SOCKETS }, () => connect(s.owner, s.base, s.sessionId).then(subscribed)));
    // Connected, not subscribed: live events are not for it.
    const idle = await connect(s.owner, s.base, s.sessionId, null);
    // The presence list that names it is out (presence.ts sends at most once per interval): no send is left due.
    await watchers[0]!.until(() => watchers[0]!.texts().some((m) => m.type === 'presence' && m.present.length === SOCKETS + 1), 'presence of every socket');
    const comment = async (body: string) => {
      const posted = await s.owner.post(`${s.path}/comments`, { objectKey: STEP_KEY, line: 1, body });
      expect(posted.status).toBe(201);
      for (const w of watchers) await w.event('comment.added', (e) => e.payload.body === body);
    };
    await comment('The first event makes the list.');
    const { spy, stop } = await spyOn(s.object, 'The second event');
    let readyStates = 0;
    await runInDurableObject(s.object, () => {
      const proto = WebSocket.prototype;
      const readyState = Object.getOwnPropertyDescriptor(proto, 'readyState')!;
      Object.defineProperty(proto, 'readyState', {
        ...readyState,
        get(this: WebSocket) {
          readyStates++;
          return readyState.get!.call(this);
        },
      });
      restoreReadyState = () => Object.defineProperty(proto, 'readyState', readyState);
    });
    try {
      await comment('The second event goes down the kept list.');
      expect(readyStates).toBe(0);
      expect(spy.frames).toHaveLength(SOCKETS);
      expect(idle.events().filter((e) => e.type === 'comment.added')).toEqual([]);
    } finally {
      await runInDurableObject(s.object, () => restoreReadyState?.());
      await stop();
    }
    // A socket that leaves is not sent to; one that subscribes is.
    watchers.pop()!.close();
    idle.send({ type: 'hello', lastSeq: 0 });
    await idle.until(() => idle.texts().find((m) => m.type === 'events' && m.replay && m.done), 'the late replay');
    watchers.push(idle);
    await comment('The third event after a socket left and one subscribed.');
    for (const w of watchers) w.close();
  });

  it('sends a live event as the same text a resume replay sends for it', async () => {
    const s = await stagedSession();
    const watcher = await connect(s.owner, s.base, s.sessionId).then(subscribed);
    const marker = crypto.randomUUID();
    const body = `Live and replayed alike (${marker}) — “ünïcödé”, a "quote" \\ and a backslash.`;
    const { spy, stop } = await spyOn(s.object, marker);
    try {
      const posted = await s.owner.post(`${s.path}/comments`, { objectKey: STEP_KEY, line: 1, body });
      expect(posted.status).toBe(201);
      const live = await watcher.event('comment.added', (e) => e.payload.body === body);
      expect(spy.frames).toHaveLength(1);
      const replayed = await runInDurableObject(s.object, (instance: AiSessionDurableObject) => [...replayFrames(instance.core.log, live.seq - 1)]);
      const frame = JSON.parse(spy.frames[0]!) as { events: unknown[]; replay: boolean; done: boolean };
      expect(frame).toMatchObject({ replay: false, done: true, events: [live] });
      // The event's text inside both frames is the same string, byte for byte.
      const eventText = (text: string) => text.slice(text.indexOf('[') + 1, text.lastIndexOf(']'));
      expect(replayed).toHaveLength(1);
      expect(eventText(spy.frames[0]!)).toBe(eventText(replayed[0]!));
    } finally {
      await stop();
      watcher.close();
    }
  });
});
