/**
 * A message from a login its session already knows is accepted with no D1 round trip (issue 19,
 * routes/known-caller-message.ts, sockets/known-callers.ts), and everything that would change the
 * answer still takes effect at once: a sign-out (its own or everywhere), a demotion, a removal, a
 * changed AI profile or language, a deleted project, an old check. Each attack below sends the
 * message the fast path must not accept. Real Worker, session object, D1 and scripted model.
 */
import { env, exports } from 'cloudflare:workers';
import { abortAllDurableObjects, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';
import { KNOWN_LOGIN_MAX_AGE_MS } from '../../durable-objects/ai-session/sockets/known-callers.ts';
import { d1RoundTripLog, resetD1RoundTrips } from '../../worker/db/instrumented-d1.ts';
import { CLOSE_CODES, IDENTITY_HEADERS } from '../../shared/protocol.ts';
import { ORIGIN, TestClient } from './client.ts';
import { connect, stepSession, supportDeskProject, type Watcher } from './sessions.ts';
import { finalAnswer, objectRows, send, sessionObject, turnEnd, useScriptedModel } from './turns.ts';

/** An editor's session (they created it, so it knows their login and profile) with their socket open. */
async function editorSession() {
  const project = await supportDeskProject();
  const editor = await project.member('editor');
  const answers = Array.from({ length: 8 }, (_, n) => finalAnswer(`Answer ${n + 1}.`, 'chat'));
  await useScriptedModel(editor, answers);
  const sessionId = await stepSession(editor, project.base);
  const watcher = await connect(editor, project.base, sessionId);
  const path = `${project.base}/ai/sessions/${sessionId}`;
  return { ...project, editor, sessionId, path, watcher, object: sessionObject(sessionId) };
}

/** Who-is-asking reads (the cookie's query, a profile read) D1 answered since the last reset. */
function identityReads(): string[] {
  return d1RoundTripLog().filter((q) => /auth_sessions|user_llm_profiles/.test(q));
}

/** Send and wait for the turn's run to be over; returns the answer and the who-is-asking reads before it. */
async function sendCounted(client: TestClient, path: string, watcher: Watcher, content: string) {
  resetD1RoundTrips();
  const res = await send(client, path, content);
  const reads = identityReads();
  if (res.status === 202) {
    await turnEnd(watcher, res.data.turnId);
    const sessionId = path.slice(path.lastIndexOf('/') + 1);
    await runInDurableObject(sessionObject(sessionId), (instance: AiSessionDurableObject) => instance.turns.runOf(res.data.turnId));
  }
  return { res, reads };
}

async function acceptedTurns(sessionId: string): Promise<number> {
  return (await objectRows(sessionId, "SELECT seq FROM events WHERE type = 'turn.accepted'")).length;
}

/** The same cookie again after the client dropped it (a stolen or replayed cookie). */
function replay(cookie: string): TestClient {
  const client = new TestClient();
  client.cookie = cookie;
  return client;
}

describe('a message from a login the session knows', () => {
  it('is accepted without asking D1 who is asking, from the first message of the session’s creator on', async () => {
    const s = await editorSession();
    for (const content of ['First.', 'Second.']) {
      const { res, reads } = await sendCounted(s.editor, s.path, s.watcher, content);
      expect(res.status).toBe(202);
      expect(reads).toEqual([]);
    }
    expect(await acceptedTurns(s.sessionId)).toBe(2);
    s.watcher.close();
  });

  it('after its own sign-out the same cookie is refused (401) and no turn starts', async () => {
    const s = await editorSession();
    expect((await sendCounted(s.editor, s.path, s.watcher, 'Before.')).res.status).toBe(202);
    const cookie = s.editor.cookie!;
    expect((await s.editor.post('/api/auth/logout')).status).toBe(200);
    const res = await send(replay(cookie), s.path, 'After my sign-out.');
    expect(res.status).toBe(401);
    expect(res.error?.code).toBe('AUTH_INVALID_TOKEN');
    expect(await acceptedTurns(s.sessionId)).toBe(1);
  });

  it('after "sign out everywhere" from another device every cookie of that person is refused', async () => {
    const s = await editorSession();
    expect((await sendCounted(s.editor, s.path, s.watcher, 'Before.')).res.status).toBe(202);
    const other = new TestClient();
    expect((await other.post('/api/auth/login', { email: s.editor.email, password: 'correct horse battery' })).status).toBe(200);
    expect((await other.post('/api/auth/logout-all')).status).toBe(200);
    const res = await send(s.editor, s.path, 'After signing out everywhere.');
    expect(res.status).toBe(401);
    expect(await acceptedTurns(s.sessionId)).toBe(1);
  });

  it('after a demotion to viewer the message is refused (403); after a removal it is not found (404)', async () => {
    const s = await editorSession();
    expect((await sendCounted(s.editor, s.path, s.watcher, 'Before.')).res.status).toBe(202);
    const editorId = s.editor.userId;
    expect((await s.owner.patch(`${s.base}/members/${editorId}`, { role: 'viewer' })).status).toBe(200);
    const demoted = await send(s.editor, s.path, 'As a viewer.');
    expect(demoted.status).toBe(403);
    expect(demoted.error?.code).toBe('FORBIDDEN');
    expect((await s.owner.delete(`${s.base}/members/${editorId}`)).status).toBe(200);
    const removed = await send(s.editor, s.path, 'As nobody.');
    expect(removed.status).toBe(404);
    expect(await acceptedTurns(s.sessionId)).toBe(1);
  });

  it('after the sender changes their AI profile or their language, the next message is checked against D1 again', async () => {
    const s = await editorSession();
    expect((await sendCounted(s.editor, s.path, s.watcher, 'Before.')).reads).toEqual([]);
    // A new profile: the next turn must run with it, not with the one the object kept.
    // (A script's step k answers a conversation with k assistant turns: the same answer at every step.)
    await useScriptedModel(s.editor, Array.from({ length: 8 }, () => finalAnswer('Answered by the new model.', 'chat')));
    const afterProfile = await sendCounted(s.editor, s.path, s.watcher, 'After the new profile.');
    expect(afterProfile.res.status).toBe(202);
    expect(afterProfile.reads.some((q) => q.includes('user_llm_profiles'))).toBe(true);
    const ended = await turnEnd(s.watcher, afterProfile.res.data.turnId);
    expect(ended.payload.summary).toBe('Answered by the new model.');
    await useScriptedModel(s.editor, Array.from({ length: 8 }, () => finalAnswer('Again.', 'chat')));
    expect((await sendCounted(s.editor, s.path, s.watcher, 'Learn me again.')).res.status).toBe(202);
    expect((await s.editor.patch('/api/auth/me', { locale: 'zh' })).status).toBe(200);
    const afterLocale = await sendCounted(s.editor, s.path, s.watcher, '换成中文了。');
    expect(afterLocale.res.status).toBe(202);
    expect(afterLocale.reads.some((q) => q.includes('auth_sessions'))).toBe(true);
    s.watcher.close();
  });

  it('a check older than the kept age is not used: the message asks D1, and the one after it does not', async () => {
    const s = await editorSession();
    await runInDurableObject(s.object, (instance: AiSessionDurableObject) => {
      instance.now = () => Date.now() + KNOWN_LOGIN_MAX_AGE_MS + 1_000;
    });
    const old = await sendCounted(s.editor, s.path, s.watcher, 'After a long pause.');
    expect(old.res.status).toBe(202);
    expect(old.reads.some((q) => q.includes('auth_sessions'))).toBe(true);
    await runInDurableObject(s.object, (instance: AiSessionDurableObject) => {
      instance.now = () => Date.now();
    });
    expect((await sendCounted(s.editor, s.path, s.watcher, 'Right after.')).reads).toEqual([]);
    s.watcher.close();
  });

  it('a deleted project’s session closes its sockets and accepts nothing more from a login it knew', async () => {
    const s = await editorSession();
    expect((await sendCounted(s.editor, s.path, s.watcher, 'Before.')).res.status).toBe(202);
    expect((await s.owner.delete(s.base)).status).toBe(200);
    await s.watcher.until(() => s.watcher.closed, 'the socket to close');
    expect(s.watcher.closed?.code).toBe(CLOSE_CODES.NOT_FOUND);
    const res = await send(s.editor, s.path, 'Into a deleted project.');
    expect(res.status).toBe(404);
    const known = await runInDurableObject(s.object, (instance: AiSessionDurableObject) => instance.sendKnownMessage(s.projectId, 'unused', { content: 'x' }));
    expect(known).toEqual({ ok: true, data: null });
    // The object released its storage with the project (project-deleted.test.ts): no turn was stored after it.
    const tables = await runInDurableObject(s.object, (_i: AiSessionDurableObject, state) => state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name IN ('events', 'turns')").toArray());
    expect(tables).toEqual([]);
  });

  it('a cookie the session never saw, or one for no login at all, goes the usual way (401) and starts nothing', async () => {
    const s = await editorSession();
    const forged = replay(`bmad_session=${'a'.repeat(52)}`);
    const res = await send(forged, s.path, 'Let me in.');
    expect(res.status).toBe(401);
    expect(await acceptedTurns(s.sessionId)).toBe(0);
    // A session id nobody made: answered after the cookie's check, and the object it names keeps no storage.
    const stranger = await supportDeskProject();
    const made = await send(stranger.owner, `${stranger.base}/ai/sessions/as_nosuchsession`, 'Hello?');
    expect(made.status).toBe(404);
    const tables = await runInDurableObject(sessionObject('as_nosuchsession'), (_i: AiSessionDurableObject, state) =>
      state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'").one().n,
    );
    expect(tables).toBe(0);
    s.watcher.close();
  });

  it('a message the session would refuse (a turn still running) is answered by the usual route, after D1’s check', async () => {
    const s = await editorSession();
    const held = await useScriptedModel(s.editor, []);
    await held.queue({ reply: finalAnswer('Slow answer.', 'chat'), delayMs: 60_000 });
    const running = await send(s.editor, s.path, 'Take your time.');
    expect(running.status).toBe(202);
    resetD1RoundTrips();
    const refused = await send(s.editor, s.path, 'Are you done?');
    expect(refused.status).toBe(409);
    expect(refused.error?.code).toBe('AI_TURN_IN_PROGRESS');
    expect(refused.error?.hints?.length).toBeGreaterThan(0);
    expect(identityReads().some((q) => q.includes('auth_sessions'))).toBe(true);
    expect((await s.editor.post(`${s.path}/stop`)).status).toBe(200);
    s.watcher.close();
  });

  it('a viewer whose socket the session knows is still refused by the usual check (403)', async () => {
    const s = await editorSession();
    const viewer = await s.member('viewer');
    await useScriptedModel(viewer, [finalAnswer('never', 'chat')]);
    const watching = await connect(viewer, s.base, s.sessionId);
    const res = await send(viewer, s.path, 'I only watch.');
    expect(res.status).toBe(403);
    expect(await acceptedTurns(s.sessionId)).toBe(0);
    watching.close();
    s.watcher.close();
  });
});

describe('what the session keeps of a login', () => {
  it('comes from the Worker only: identity headers a client adds to its upgrade are dropped', async () => {
    const s = await editorSession();
    const forgedExpiry = Date.now() + 10 * 365 * 86_400_000;
    const res = await exports.default.fetch(`${ORIGIN}${s.base}/ai/sessions/${s.sessionId}/ws`, {
      headers: { upgrade: 'websocket', origin: ORIGIN, cookie: s.editor.cookie!, [IDENTITY_HEADERS.locale]: 'zh', [IDENTITY_HEADERS.loginExpiresAt]: String(forgedExpiry) },
    });
    expect(res.status).toBe(101);
    res.webSocket!.accept();
    const rows = await objectRows(s.sessionId, `SELECT locale, expires_at FROM known_logins WHERE user_id = '${s.editor.userId}'`);
    const [stored] = await env.DB.prepare('SELECT expires_at FROM auth_sessions WHERE user_id = ?').bind(s.editor.userId).all<{ expires_at: string }>().then((r) => r.results);
    expect(rows).toEqual([{ locale: null, expires_at: Date.parse(stored!.expires_at) }]);
    res.webSocket!.close();
    s.watcher.close();
  });

  it('a check read before a sign-out or a change to the person, arriving after it, is not used', async () => {
    const s = await editorSession();
    const verdicts = await runInDurableObject(s.object, (instance: AiSessionDurableObject) => {
      const { callers, members, signOuts } = instance.people;
      const at = Date.now();
      const far = at + 3_600_000;
      // Signed out everywhere at `at`; a check of a login read a moment before reaches the object after it.
      signOuts.record({ type: 'signedOut', userId: 'usr_late', loginSessionId: null, at });
      members.seed('usr_late', 'editor', at - 5);
      callers.rememberLogin({ loginSession: 'login-late', readAt: at - 5, expiresAt: far }, { userId: 'usr_late', name: 'Late' });
      callers.rememberProfile('usr_late', null, at - 5);
      const signedOut = instance.people.sender('login-late');
      // A change to the person at `at`: a check read before it is not kept at all.
      callers.forget('usr_changed', at);
      members.seed('usr_changed', 'editor', at - 5);
      callers.rememberLogin({ loginSession: 'login-changed', readAt: at - 5, expiresAt: far }, { userId: 'usr_changed', name: 'Changed' });
      callers.rememberProfile('usr_changed', null, at - 5);
      const changed = instance.people.sender('login-changed');
      // The same checks read after: used.
      callers.rememberLogin({ loginSession: 'login-fresh', readAt: at + 5, expiresAt: far }, { userId: 'usr_changed', name: 'Changed' });
      callers.rememberProfile('usr_changed', null, at + 5);
      const fresh = instance.people.sender('login-fresh');
      // An expired cookie is not kept.
      callers.rememberLogin({ loginSession: 'login-expired', readAt: at + 5, expiresAt: at - 1 }, { userId: 'usr_changed', name: 'Changed' });
      return { signedOut, changed, fresh: fresh?.actor.userId ?? null, expired: callers.login('login-expired') };
    });
    expect(verdicts).toEqual({ signedOut: null, changed: null, fresh: 'usr_changed', expired: null });
    s.watcher.close();
  });

  it('keeps the logins it checked in its storage across a restart, never a sealed key: a woken object reads the profile once more', async () => {
    const s = await editorSession();
    expect((await sendCounted(s.editor, s.path, s.watcher, 'Before.')).res.status).toBe(202);
    await abortAllDurableObjects();
    const stored = await runInDurableObject(s.object, (_i: AiSessionDurableObject, state) => {
      const tables = state.storage.sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'").toArray();
      return {
        logins: state.storage.sql.exec('SELECT user_id FROM known_logins').toArray().length,
        everything: JSON.stringify(tables.map((t) => state.storage.sql.exec(`SELECT * FROM "${t.name}"`).toArray())),
      };
    });
    expect(stored.logins).toBeGreaterThan(0);
    // The profile the object used was kept in memory only: its sealed key is in no table.
    const sealed = await env.DB.prepare('SELECT api_key_ciphertext AS c FROM user_llm_profiles WHERE user_id = ?').bind(s.editor.userId).first<{ c: string }>();
    expect(sealed?.c).toBeTruthy();
    expect(stored.everything).not.toContain(sealed!.c);
    const watcher = await connect(s.editor, s.base, s.sessionId);
    const woken = await sendCounted(s.editor, s.path, watcher, 'After the restart.');
    expect(woken.res.status).toBe(202);
    expect(woken.reads.some((q) => q.includes('user_llm_profiles'))).toBe(true);
    expect((await sendCounted(s.editor, s.path, watcher, 'And again.')).reads).toEqual([]);
    watcher.close();
  });
});
