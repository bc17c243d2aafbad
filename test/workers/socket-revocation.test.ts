/**
 * A live socket loses what its person loses, through the real upgrade and the real REST routes:
 * a removed member's sockets close, a demoted editor's next Yjs update and stop are refused (and
 * they are told why), a promoted viewer can edit, a sign-out closes only that login's sockets and
 * "sign out everywhere" closes all of them, in every project.
 */
import { describe, expect, it } from 'vitest';
import { TestClient } from './client.ts';
import { STEP, WF, YClient, connect, stagedStepSession, stepSession, supportDeskProject, type Watcher } from './sessions.ts';
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

/** The socket is still served: a presence frame of its own comes back naming its file. */
async function stillLive(watcher: Watcher, file: string): Promise<void> {
  watcher.send({ type: 'presence', file });
  await watcher.until(() => watcher.texts().find((m) => m.type === 'presence' && m.present.some((p: any) => p.file === file)), `presence for ${file}`);
  expect(watcher.closed).toBeNull();
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
    expect((await second.owner.post(`${second.base}/members`, { email: editor.email, role: 'viewer' })).status).toBe(201);
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
