/**
 * A live socket loses what its person loses, through the real upgrade and the real REST routes:
 * a removed member's sockets close, a demoted editor's next Yjs update and stop are refused (and
 * they are told why), a promoted viewer can edit, a sign-out closes only that login's sockets and
 * "sign out everywhere" closes all of them, in every project.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { joinProject, TestClient } from './client.ts';
import { STEP, WF, YClient, connect, stagedStepSession, stepSession, supportDeskProject, type Watcher, stillLive } from './sessions.ts';
import { finalAnswer, useScriptedModel, waitFor } from './turns.ts';

const STEP_KEY = `step:${WF}/${STEP}`;

/** A project with a staged step rewrite in one session, ready for co-editing. */
const stagedSession = () =>
  stagedStepSession((markdown) => markdown.replace('3. Set `variables.missingDetails`', '3. Cite the policy section.\n4. Set `variables.missingDetails`'));

/** The staged text of the step as the server holds it. */
async function stagedText(client: TestClient, path: string): Promise<string> {
  const files = (await client.get(`${path}/changes`)).data.files as Array<{ key: string; after: string }>;
  return files.find((f) => f.key === STEP_KEY)!.after;
}

/** Type into the staged step as `watcher`'s person (the send may find the socket already closed). */
async function coEditor(watcher: Watcher) {
  const y = new YClient(watcher);
  const text = await y.sync(() => y.text(STEP_KEY), 'the staged step in the Yjs doc');
  return {
    type(marker: string) {
      try {
        text.insert(0, marker);
      } catch {
        // A closed socket refuses the send; the server must not have applied anything either way.
      }
    },
  };
}

function errorFrame(watcher: Watcher, code: string) {
  return watcher.until(() => watcher.texts().find((m) => m.type === 'error' && m.code === code), `an error frame ${code}`);
}

/** A second login of the same person (another browser): its own cookie. */
async function secondLogin(email: string): Promise<TestClient> {
  const client = new TestClient();
  const res = await client.post('/api/auth/login', { email, password: 'correct horse battery' });
  if (res.status !== 200) throw new Error(`login failed: ${JSON.stringify(res.error)}`);
  return client;
}

describe('membership changes reach live sockets', () => {
  it('closes a removed editor\'s socket with MEMBERSHIP_REVOKED before the DELETE answers, and applies nothing it sends after', async () => {
    const { owner, base, member, sessionId, path, markdown } = await stagedSession();
    const editor = await member('editor');
    const viewer = await member('viewer');
    const e = await connect(editor, base, sessionId);
    const edits = await coEditor(e);
    const v = await connect(viewer, base, sessionId);

    const removed = await owner.delete(`${base}/members/${editor.userId}`);
    expect(removed.status).toBe(200);
    edits.type('REMOVED EDITOR WAS HERE ');

    await e.until(() => e.closed, 'the removed editor\'s socket to close');
    expect(e.closed).toEqual({ code: 4430, reason: 'MEMBERSHIP_REVOKED' });
    expect(e.texts()).toContainEqual(expect.objectContaining({ type: 'error', code: 'MEMBERSHIP_REVOKED' }));
    expect(await stagedText(owner, path)).toBe(markdown);
    // The others see them gone; the viewer's socket is untouched.
    await v.until(() => v.texts().findLast((m) => m.type === 'presence' && !m.present.some((p: any) => p.userId === editor.userId)), 'presence without the editor');
    await stillLive(v, STEP_KEY);
    v.close();
  });

  it('makes a demoted editor read-only at once: told why, the next Yjs update refused, a stop refused', async () => {
    const { owner, base, member, sessionId, path, markdown } = await stagedSession();
    const editor = await member('editor');
    const scripted = await useScriptedModel(owner, []);
    await scripted.queue({ reply: finalAnswer('never sent', 'chat'), delayMs: 60_000 });
    const e = await connect(editor, base, sessionId);
    const edits = await coEditor(e);
    const started = await owner.post(`${path}/messages`, { content: 'Tighten the step.' });
    expect(started.status).toBe(202);
    await waitFor(async () => (await scripted.pending()) === 1, 'the model call in flight');

    const demoted = await owner.patch(`${base}/members/${editor.userId}`, { role: 'viewer' });
    expect(demoted.status).toBe(200);
    edits.type('DEMOTED EDITOR WAS HERE ');
    await errorFrame(e, 'YJS_FORBIDDEN_CHANGE');
    expect(await stagedText(owner, path)).toBe(markdown);

    const told = e.texts().find((m) => m.type === 'role');
    expect(told).toMatchObject({ type: 'role', role: 'viewer', canEdit: false });
    expect(told.reason).toMatch(/viewer/);

    e.send({ type: 'stop' });
    await errorFrame(e, 'FORBIDDEN');
    expect((await owner.get(path)).data.turn).toMatchObject({ turnId: started.data.turnId, status: 'running' });
    expect(e.events().some((ev) => ev.type === 'turn.stopped')).toBe(false);
    expect(e.closed).toBeNull();

    expect((await owner.post(`${path}/stop`)).status).toBe(200);
    e.close();
  });

  it('lets a viewer promoted to editor edit over the socket they already have', async () => {
    const { owner, base, member, sessionId, path } = await stagedSession();
    const viewer = await member('viewer');
    const v = await connect(viewer, base, sessionId);
    const edits = await coEditor(v);

    const promoted = await owner.patch(`${base}/members/${viewer.userId}`, { role: 'editor' });
    expect(promoted.status).toBe(200);
    await v.until(() => v.texts().find((m) => m.type === 'role'), 'the role frame');
    expect(v.texts().find((m) => m.type === 'role')).toMatchObject({ role: 'editor', canEdit: true });
    edits.type('PROMOTED VIEWER WAS HERE ');
    await v.event('change.staged', (ev) => ev.payload.source === 'edit' && ev.actor.userId === viewer.userId);
    expect(await stagedText(owner, path)).toMatch(/^PROMOTED VIEWER WAS HERE /);
    expect(v.texts().some((m) => m.type === 'error')).toBe(false);
    v.close();
  });
});

describe('signing out reaches live sockets', () => {
  it('closes only the sockets of the login that signed out; another login of the same person stays live', async () => {
    const { base, member, sessionId } = await stagedSession();
    const editor = await member('editor');
    const laptop = await secondLogin(editor.email);
    const here = await connect(editor, base, sessionId);
    const there = await connect(laptop, base, sessionId);

    const out = await editor.post('/api/auth/logout');
    expect(out.status).toBe(200);
    await here.until(() => here.closed, 'the signed-out login\'s socket to close');
    expect(here.closed).toEqual({ code: 4431, reason: 'SIGNED_OUT' });
    await stillLive(there, STEP_KEY);
    there.close();
  });

  it('signs out everywhere: every login ends and every socket closes, in every project', async () => {
    const first = await stagedSession();
    const editor = await first.member('editor');
    const second = await supportDeskProject();
    await joinProject(second.owner, second.projectId, editor, editor.email, 'viewer');
    const otherSession = await stepSession(second.owner, second.base);
    const laptop = await secondLogin(editor.email);
    const sockets = [
      await connect(editor, first.base, first.sessionId),
      await connect(laptop, first.base, first.sessionId),
      await connect(laptop, second.base, otherSession),
    ];
    const ownerSocket = await connect(first.owner, first.base, first.sessionId);

    const out = await editor.post('/api/auth/logout-all');
    expect(out.status).toBe(200);
    for (const socket of sockets) {
      await socket.until(() => socket.closed, 'every socket of theirs to close');
      expect(socket.closed).toEqual({ code: 4431, reason: 'SIGNED_OUT' });
    }
    expect((await laptop.get('/api/auth/me')).status).toBe(401);
    await stillLive(ownerSocket, STEP_KEY);
    ownerSocket.close();
  });
});

describe('a session that has ended is read-only on every socket', () => {
  /** A frame's answer: the `ack` or `error` carrying `requestId`. */
  function answerTo(watcher: Watcher, requestId: string) {
    return watcher.until(() => watcher.texts().find((m) => (m.type === 'ack' || m.type === 'error') && m.requestId === requestId), `the answer to ${requestId}`);
  }

  it('refuses the comments of a removed viewer and of a signed-out login on a cancelled session, stores nothing and tells nobody', async () => {
    const { owner, base, member, sessionId, path } = await stagedSession();
    const editor = await member('editor');
    const viewer = await member('viewer');
    const thread = await owner.post(`${path}/comments`, { objectKey: STEP_KEY, line: 1, body: 'Before the end.' });
    expect(thread.status).toBe(201);
    const laptop = await secondLogin(editor.email);
    const v = await connect(viewer, base, sessionId);
    const l = await connect(laptop, base, sessionId);

    // The channel tells only active sessions: neither socket is closed by these.
    expect((await owner.post(`${path}/cancel`)).status).toBe(200);
    await v.event('session.cancelled');
    expect((await owner.delete(`${base}/members/${viewer.userId}`)).status).toBe(200);
    expect((await laptop.post('/api/auth/logout')).status).toBe(200);

    const reply = (requestId: string) => ({ type: 'comment', requestId, comment: { objectKey: STEP_KEY, threadId: thread.data.threadId, body: `@${owner.email} still here` } });
    v.send(reply('removed-viewer'));
    expect(await answerTo(v, 'removed-viewer')).toMatchObject({ type: 'error', code: 'AI_SESSION_CLOSED' });
    l.send(reply('signed-out-login'));
    expect(await answerTo(l, 'signed-out-login')).toMatchObject({ type: 'error', code: 'AI_SESSION_CLOSED' });
    l.send({ type: 'presence', file: STEP_KEY });
    await errorFrame(l, 'AI_SESSION_CLOSED');
    new YClient(l).doc.getText('written-after-the-end').insert(0, 'SIGNED-OUT LOGIN WAS HERE');
    await l.until(() => l.texts().filter((m) => m.type === 'error' && m.code === 'AI_SESSION_CLOSED' && !m.requestId).length === 2, 'the Yjs update refused');
    expect(l.closed).toBeNull();

    // Read-only for everyone, over HTTP too: the owner's reply, resolve and keep mark.
    const ownerReply = await owner.post(`${path}/comments`, { objectKey: STEP_KEY, threadId: thread.data.threadId, body: 'After the end.' });
    expect(ownerReply.error?.code).toBe('AI_SESSION_CLOSED');
    expect((await owner.post(`${path}/threads/${thread.data.threadId}/resolve`)).error?.code).toBe('AI_SESSION_CLOSED');
    expect((await owner.post(`${path}/keep-marks`, { objectKey: STEP_KEY, hash: 'abc', scope: 'file', kept: true })).error?.code).toBe('AI_SESSION_CLOSED');

    const threads = (await owner.get(path)).data.review.threads as Array<{ status: string; comments: unknown[] }>;
    expect(threads.map((t) => [t.status, t.comments.length])).toEqual([['open', 1]]);
    const mentions = await env.DB.prepare('SELECT id FROM mentions WHERE session_id = ?').bind(sessionId).all();
    expect(mentions.results).toEqual([]);
    expect(v.events().filter((e) => e.type === 'comment.added' || e.type === 'mention')).toHaveLength(1);

    // Nothing live reaches a socket on an ended session: someone joining is not announced to it.
    const mark = v.frames.length;
    const o = await connect(owner, base, sessionId);
    v.send({ type: 'hello', lastSeq: 1_000_000 });
    await v.until(() => v.frames.slice(mark).find((f) => f.kind === 'text' && f.value.type === 'events' && f.value.replay), 'the probe replay');
    expect(v.frames.slice(mark).filter((f) => f.kind === 'text' && f.value.type === 'presence')).toEqual([]);
    for (const w of [v, l, o]) w.close();
  });
});
