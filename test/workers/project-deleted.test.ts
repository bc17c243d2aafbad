/**
 * A deleted project's session objects release their storage (the project channel's
 * `projectDeleted`): the running turn stops, the sockets close (4404), the audit rows waiting in the
 * object reach D1, and then every table goes. Afterwards the object answers as if the session
 * never existed, and nothing (a read, a socket, an alarm, a woken instance) makes its tables again.
 * A request already past the session check and waiting on D1 when the storage goes (held here until
 * the release is done) answers "not found" too, with no error logged.
 * Real Worker, real session object, real D1, the scripted model.
 */
import { env } from 'cloudflare:workers';
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';
import { CLOSE_CODES, IDENTITY_HEADERS } from '../../shared/protocol.ts';
import { ORIGIN } from './client.ts';
import { STEP, WF, connect, stepSession, supportDeskProject } from './sessions.ts';
import { auditRows, finalAnswer, send, sessionObject, useScriptedModel } from './turns.ts';
import { recordedLines } from './console-recorder.ts';

const DAY_MS = 86_400_000;

/** The object's own tables (the platform's `_cf_` ones aside), and the keys of its key-value storage (partyserver keeps the object's name there). */
function storedTables(sessionId: string): Promise<string[]> {
  return runInDurableObject(sessionObject(sessionId), async (_instance: AiSessionDurableObject, state) => [
    ...state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'")
      .toArray()
      .map((r) => r.name),
    ...[...(await state.storage.list()).keys()].map((key) => `key:${key}`),
  ]);
}

/** An upgrade straight to the object, as one the Worker let through before the delete would arrive. */
async function upgradeToObject(sessionId: string, projectId: string, base: string, userId: string): Promise<{ code: number; reason: string; texts: string[] }> {
  const headers = new Headers({ upgrade: 'websocket' });
  headers.set(IDENTITY_HEADERS.userId, userId);
  headers.set(IDENTITY_HEADERS.name, 'Owen');
  headers.set(IDENTITY_HEADERS.role, 'owner');
  headers.set(IDENTITY_HEADERS.projectId, projectId);
  headers.set(IDENTITY_HEADERS.roleReadAt, String(Date.now()));
  headers.set(IDENTITY_HEADERS.loginSession, 'ls_before_the_delete');
  const res = await sessionObject(sessionId).fetch(`${ORIGIN}${base}/ai/sessions/${sessionId}/ws`, { headers });
  expect(res.status).toBe(101);
  const socket = res.webSocket!;
  const texts: string[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.addEventListener('close', (e) => resolve({ code: e.code, reason: e.reason })));
  socket.addEventListener('message', (e) => texts.push(String(e.data)));
  socket.accept();
  return { ...(await closed), texts };
}

/**
 * The object's D1 with the round trips whose SQL matches `held` kept waiting until `open()`: a
 * request in flight for as long as the test says. Every other statement goes through at once.
 */
class HeldD1 {
  #open!: () => void;
  readonly #opened = new Promise<void>((resolve) => (this.#open = resolve));
  #reach!: () => void;
  /** Settles once a held round trip was asked for. */
  readonly reached = new Promise<void>((resolve) => (this.#reach = resolve));

  constructor(
    readonly db: D1Database,
    readonly held: RegExp,
  ) {}

  prepare(sql: string): HeldStatement {
    return new HeldStatement(this, this.db.prepare(sql), sql);
  }

  async batch<T>(statements: HeldStatement[]): Promise<D1Result<T>[]> {
    await this.wait(statements.map((s) => s.sql).join(';'));
    return this.db.batch<T>(statements.map((s) => s.inner));
  }

  async wait(sql: string): Promise<void> {
    if (!this.held.test(sql)) return;
    this.#reach();
    await this.#opened;
  }

  open(): void {
    this.#open();
  }
}

class HeldStatement {
  constructor(
    readonly db: HeldD1,
    readonly inner: D1PreparedStatement,
    readonly sql: string,
  ) {}

  bind(...values: unknown[]): HeldStatement {
    return new HeldStatement(this.db, this.inner.bind(...values), this.sql);
  }

  async first(column?: string) {
    await this.db.wait(this.sql);
    return column === undefined ? this.inner.first() : this.inner.first(column);
  }

  async all() {
    await this.db.wait(this.sql);
    return this.inner.all();
  }

  async run() {
    await this.db.wait(this.sql);
    return this.inner.run();
  }

  async raw(options?: { columnNames?: boolean }) {
    await this.db.wait(this.sql);
    return options?.columnNames ? this.inner.raw({ columnNames: true }) : this.inner.raw();
  }
}

/**
 * A fresh instance of the session's object (the platform dropped the last one) whose D1 holds the
 * round trips matching `held`. Set before its first use: the object makes its D1 client when it
 * sets up, from its env.
 */
async function objectWithHeldD1(sessionId: string, held: RegExp): Promise<HeldD1> {
  await abortAllDurableObjects();
  return runInDurableObject(sessionObject(sessionId), (instance: AiSessionDurableObject) => {
    const object = instance as unknown as { env: Cloudflare.Env };
    const gate = new HeldD1(object.env.DB, held);
    object.env = { ...object.env, DB: gate as unknown as D1Database };
    return gate;
  });
}

const STORAGE_ERRORS = /no such table|INTERNAL_ERROR|failed unexpectedly|from a socket failed/;

describe('a deleted project’s session object', () => {
  it('stops the turn, closes the sockets, hands its audit rows to D1 and then keeps no table', async () => {
    const { owner, base, projectId } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const held = await useScriptedModel(owner, []);
    await held.queue({ reply: finalAnswer('Never delivered.', 'chat'), delayMs: 60_000 });
    const watcher = await connect(owner, base, sessionId);
    const running = await send(owner, `${base}/ai/sessions/${sessionId}`, 'Take your time.');
    expect(running.status).toBe(202);
    expect(await storedTables(sessionId)).toEqual(expect.arrayContaining(['kv', 'events', 'messages', 'turns', 'y_updates', 'audit_outbox']));

    expect((await owner.delete(base)).status).toBe(200);
    await watcher.until(() => watcher.closed, 'the socket to close');
    expect(watcher.closed).toEqual({ code: CLOSE_CODES.NOT_FOUND, reason: 'AI_SESSION_NOT_FOUND' });
    expect(await storedTables(sessionId)).toEqual([]);
    // The rows the turn wrote to the outbox reached D1 before the storage went.
    expect((await auditRows(projectId)).map((r) => r.event_type)).toEqual(expect.arrayContaining(['ai.message.sent']));
    // No alarm is left to wake the object (a watchdog, an audit flush).
    expect(await runDurableObjectAlarm(sessionObject(sessionId))).toBe(false);
  });

  it('answers as if it never existed afterwards, and no read, socket or alarm makes its tables again', async () => {
    const { owner, base, projectId } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    expect((await owner.delete(base)).status).toBe(200);
    expect(await storedTables(sessionId)).toEqual([]);

    for (const fresh of [false, true]) {
      // The same instance, then one woken after the platform dropped it.
      if (fresh) await abortAllDurableObjects();
      const answers = await runInDurableObject(sessionObject(sessionId), async (instance: AiSessionDurableObject) => {
        await instance.alarm();
        return {
          state: await instance.getState(projectId),
          message: await instance.sendMessage(projectId, { userId: owner.userId, name: 'Owen', role: 'owner' }, { content: 'Anyone there?' }),
          told: await instance.projectMessage(projectId, { type: 'baselineMoved' }),
        };
      });
      expect(answers.state).toMatchObject({ ok: false, error: { code: 'AI_SESSION_NOT_FOUND' } });
      expect(answers.message).toMatchObject({ ok: false, error: { code: 'AI_SESSION_NOT_FOUND' } });
      expect(answers.told).toEqual({ sockets: 0 });
      const socket = await upgradeToObject(sessionId, projectId, base, owner.userId);
      expect({ code: socket.code, reason: socket.reason }).toEqual({ code: CLOSE_CODES.NOT_FOUND, reason: 'AI_SESSION_NOT_FOUND' });
      expect(socket.texts.some((t) => t.includes('"hello"'))).toBe(false);
      expect(await storedTables(sessionId)).toEqual([]);
    }
    // Through the Worker the session is gone with its project.
    expect((await owner.get(`${base}/ai/sessions/${sessionId}`)).status).toBe(404);
  });

  it('an ended session (not told: it was not active) is released after its retention period with nothing to archive', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    expect((await owner.post(`${base}/ai/sessions/${sessionId}/cancel`)).status).toBe(200);
    expect((await owner.delete(base)).status).toBe(200);
    expect(await storedTables(sessionId)).toContain('events');
    const object = sessionObject(sessionId);
    await runInDurableObject(object, (instance: AiSessionDurableObject) => {
      instance.now = () => Date.now() + 31 * DAY_MS;
    });
    expect(await runDurableObjectAlarm(object)).toBe(true);
    expect(await storedTables(sessionId)).toEqual([]);
    const archived = await env.DB.prepare('SELECT COUNT(*) AS n FROM ai_session_archives WHERE session_id = ?').bind(sessionId).first<{ n: number }>();
    expect(archived?.n).toBe(0);
  });

  it('answers a message whose profile read was still in D1 when the storage went "not found", and makes no table again', async () => {
    const { owner, base, projectId } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    await useScriptedModel(owner, [finalAnswer('Never asked for.', 'chat')]);
    const gate = await objectWithHeldD1(sessionId, /user_llm_profiles/);
    const logged = recordedLines().length;

    const answer = await runInDurableObject(sessionObject(sessionId), async (instance: AiSessionDurableObject) => {
      // Past the session check, waiting for the sender's profile (no preload: the object reads D1).
      const sending = instance.sendMessage(projectId, { userId: owner.userId, name: 'Owen', role: 'owner' }, { content: 'Still there?' });
      await gate.reached;
      expect(await instance.projectMessage(projectId, { type: 'projectDeleted' })).toEqual({ sockets: 0 });
      gate.open();
      return sending;
    });
    expect(answer).toEqual({ ok: false, status: 404, error: expect.objectContaining({ code: 'AI_SESSION_NOT_FOUND' }) });
    expect(await storedTables(sessionId)).toEqual([]);
    expect(await runDurableObjectAlarm(sessionObject(sessionId))).toBe(false);
    expect(recordedLines().slice(logged).filter((line) => STORAGE_ERRORS.test(line))).toEqual([]);
  });

  it('answers a cancel whose D1 write outlived the storage, and a socket comment queued behind it, "not found" without an error log', async () => {
    const { owner, base, projectId } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const gate = await objectWithHeldD1(sessionId, /update "ai_sessions"/);
    const watcher = await connect(owner, base, sessionId);
    await watcher.until(() => watcher.texts().find((m) => m.type === 'hello'), 'the hello');
    const logged = recordedLines().length;

    const answer = await runInDurableObject(sessionObject(sessionId), async (instance: AiSessionDurableObject) => {
      const core = instance.core;
      // The cancel holds the session's command queue while D1 records it.
      const cancelling = instance.cancel(projectId, { userId: owner.userId, name: 'Owen', role: 'owner' });
      await gate.reached;
      // A comment sent on the socket meanwhile waits behind it in the same queue.
      const [socket] = [...instance.getConnections()];
      instance.onMessage(socket as never, JSON.stringify({ type: 'comment', requestId: 'late', comment: { objectKey: `step:${WF}/${STEP}`, line: 1, body: 'Before it goes?' } }));
      expect(await instance.projectMessage(projectId, { type: 'projectDeleted' })).toEqual({ sockets: 1 });
      gate.open();
      const cancelled = await cancelling;
      // Queued after the comment: once it settled, the comment was answered.
      await core.discard({ kind: 'user', userId: owner.userId, name: 'Owen' }).catch(() => undefined);
      return cancelled;
    });
    expect(answer).toEqual({ ok: false, status: 404, error: expect.objectContaining({ code: 'AI_SESSION_NOT_FOUND' }) });
    await watcher.until(() => watcher.closed, 'the socket to close');
    expect(watcher.closed).toEqual({ code: CLOSE_CODES.NOT_FOUND, reason: 'AI_SESSION_NOT_FOUND' });
    expect(await storedTables(sessionId)).toEqual([]);
    expect(recordedLines().slice(logged).filter((line) => STORAGE_ERRORS.test(line))).toEqual([]);
  });
});
