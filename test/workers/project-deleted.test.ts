/**
 * A deleted project's session objects release their storage (the project channel's
 * `projectDeleted`): the running turn stops, the sockets close (4404), the audit rows waiting in the
 * object reach D1, and then every table goes. Afterwards the object answers as if the session
 * never existed, and nothing (a read, a socket, an alarm, a woken instance) makes its tables again.
 * Real Worker, real session object, real D1, the scripted model.
 */
import { env } from 'cloudflare:workers';
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';
import { CLOSE_CODES, IDENTITY_HEADERS } from '../../shared/protocol.ts';
import { ORIGIN } from './client.ts';
import { connect, stepSession, supportDeskProject } from './sessions.ts';
import { auditRows, finalAnswer, send, sessionObject, useScriptedModel } from './turns.ts';

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
});
