/**
 * Attacks on who a socket is, through the real upgrade route: a client-chosen connection id
 * (`?_pk=`, which partyserver would take as the id) must neither hide a second socket of the same
 * login from a sign-out nor let one member cut another off the live feed by reusing their id; and a
 * sign-out the session was told of before an upgrade reached it (the cookie read just before the
 * sign-out) refuses that upgrade.
 */
import { describe, expect, it } from 'vitest';
import { runInDurableObject } from 'cloudflare:test';
import { exports } from 'cloudflare:workers';
import { ORIGIN, TestClient } from './client.ts';
import { STEP, WF, Watcher, connect, stagedStepSession, stepChangeSet, stillLive } from './sessions.ts';
import { objectRows, sessionObject } from './turns.ts';
import { IDENTITY_HEADERS } from '../../shared/protocol.ts';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';

const STEP_KEY = `step:${WF}/${STEP}`;

async function secondLogin(email: string): Promise<TestClient> {
  const client = new TestClient();
  const res = await client.post('/api/auth/login', { email, password: 'correct horse battery' });
  if (res.status !== 200) throw new Error(`login failed: ${JSON.stringify(res.error)}`);
  return client;
}

/** The connection ids the server lists in the latest presence frame `watcher` received. */
function presentIds(watcher: Watcher): string[] {
  const frame = watcher.texts().findLast((m) => m.type === 'presence');
  return (frame?.present ?? []).map((p: { connectionId: string }) => p.connectionId);
}

describe('a connection id chosen by the client is not used', () => {
  it('closes both sockets of one login on "sign out everywhere" when they were opened with the same _pk', async () => {
    const { base, member, sessionId } = await stagedStepSession((m) => `${m}\n\nOne more line.\n`);
    const editor = await member('editor');
    const first = await connect(editor, base, sessionId, 0, '?_pk=chosen-by-me');
    const second = await connect(editor, base, sessionId, 0, '?_pk=chosen-by-me');
    await second.until(() => presentIds(second).length === 2 && presentIds(second), 'both sockets in presence');
    const ids = presentIds(second);
    expect(new Set(ids).size).toBe(2);
    expect(ids).not.toContain('chosen-by-me');

    expect((await editor.post('/api/auth/logout-all')).status).toBe(200);
    for (const socket of [first, second]) {
      await socket.until(() => socket.closed, 'every socket of theirs to close');
      expect(socket.closed).toEqual({ code: 4431, reason: 'SIGNED_OUT' });
    }
  });

  it('closes both sockets of a login on its sign-out when they were opened with the same _pk; a comment sent after is not taken', async () => {
    const { owner, base, member, sessionId, path } = await stagedStepSession((m) => `${m}\n\nOne more line.\n`);
    const viewer = await member('viewer');
    const first = await connect(viewer, base, sessionId, 0, '?_pk=twin');
    const second = await connect(viewer, base, sessionId, 0, '?_pk=twin');

    expect((await viewer.post('/api/auth/logout')).status).toBe(200);
    // What a socket the sign-out missed could still do: comment on the review.
    for (const socket of [first, second]) {
      try {
        socket.send({ type: 'comment', requestId: 'late', comment: { objectKey: STEP_KEY, line: 1, body: 'written after sign-out' } });
      } catch {
        // Already closed under us: nothing was sent.
      }
    }
    for (const socket of [first, second]) {
      await socket.until(() => socket.closed, 'the signed-out login\'s sockets to close');
      expect(socket.closed).toEqual({ code: 4431, reason: 'SIGNED_OUT' });
      expect(socket.texts().some((m) => m.type === 'ack' || m.requestId === 'late')).toBe(false);
    }
    const session = await owner.get(path);
    expect(session.status).toBe(200);
    expect(session.data.review.threads).toHaveLength(0);
  });

  it('does not let a member take another socket\'s id: the owner\'s socket stays on the live feed after the copy closes', async () => {
    const { owner, base, member, sessionId, path, markdown } = await stagedStepSession((m) => `${m}\n\nOne more line.\n`);
    const viewer = await member('viewer');
    const mine = await connect(owner, base, sessionId);
    const ownId = await mine.until(() => presentIds(mine)[0], 'the owner\'s connection id');

    const copy = await connect(viewer, base, sessionId, 0, `?_pk=${encodeURIComponent(ownId)}`);
    await copy.until(() => presentIds(copy).length === 2 && presentIds(copy), 'both in presence');
    expect(presentIds(copy).filter((id) => id === ownId)).toHaveLength(1);
    copy.close();
    await mine.until(() => presentIds(mine).length === 1 && presentIds(mine)[0] === ownId, 'presence without the copy');

    // A live event still reaches the owner's socket, and its own frames are still answered.
    const staged = await owner.post(`${path}/stage`, { changeSet: stepChangeSet(`${markdown}Another line.\n`) });
    expect(staged.status).toBe(200);
    await mine.event('change.staged', (e) => e.seq > 0 && e.actor?.userId === owner.userId);
    await stillLive(mine, STEP_KEY);
    mine.close();
  });
});

describe('a sign-out told before the upgrade arrives', () => {
  it('refuses a socket whose cookie was read before "sign out everywhere" reached the session', async () => {
    const { projectId, base, member, sessionId } = await stagedStepSession((m) => `${m}\n\nOne more line.\n`);
    const editor = await member('editor');
    // The race: the Worker checked the cookie (valid), then the sign-out was written and told to
    // the session, then the upgrade reached it. A sign-out time after the cookie read stands for it.
    const told = await runInDurableObject(sessionObject(sessionId), (instance: AiSessionDurableObject) =>
      instance.projectMessage(projectId, { type: 'signedOut', userId: editor.userId, loginSessionId: null, at: Date.now() + 60_000 }),
    );
    expect(told).toEqual({ sockets: 0 });
    const res = await connectRaw(editor, base, sessionId);
    await res.until(() => res.closed, 'the upgrade to be refused');
    expect(res.closed).toEqual({ code: 4431, reason: 'SIGNED_OUT' });
    expect(res.texts().some((m) => m.type === 'hello')).toBe(false);
  });

  it('refuses a socket for a login the session was told signed out, whatever the read time', async () => {
    const { projectId, base, member, sessionId } = await stagedStepSession((m) => `${m}\n\nOne more line.\n`);
    const editor = await member('editor');
    const open = await connect(editor, base, sessionId);
    expect((await editor.post('/api/auth/logout')).status).toBe(200);
    await open.until(() => open.closed, 'the socket to close');
    const [row] = await objectRows(sessionId, 'SELECT login_session, user_id FROM sign_outs');
    expect(row).toMatchObject({ user_id: editor.userId });
    // An upgrade of that login that passed the Worker before the sign-out, arriving after it.
    const stub = sessionObject(sessionId);
    const headers = new Headers({ upgrade: 'websocket' });
    headers.set(IDENTITY_HEADERS.userId, editor.userId);
    headers.set(IDENTITY_HEADERS.name, 'Edith');
    headers.set(IDENTITY_HEADERS.role, 'editor');
    headers.set(IDENTITY_HEADERS.projectId, projectId);
    headers.set(IDENTITY_HEADERS.roleReadAt, String(Date.now()));
    headers.set(IDENTITY_HEADERS.loginSession, String(row!.login_session));
    const res = await stub.fetch(`${ORIGIN}${base}/ai/sessions/${sessionId}/ws`, { headers });
    expect(res.status).toBe(101);
    const socket = res.webSocket!;
    const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.addEventListener('close', (e) => resolve({ code: e.code, reason: e.reason })));
    const texts: string[] = [];
    socket.addEventListener('message', (e) => texts.push(String(e.data)));
    socket.accept();
    expect(await closed).toEqual({ code: 4431, reason: 'SIGNED_OUT' });
    expect(texts.some((t) => t.includes('"hello"'))).toBe(false);
    // The refused socket left nothing behind in the object's list of sockets.
    const openSockets = await runInDurableObject(stub, (instance: AiSessionDurableObject) =>
      [...instance.getConnections()].filter((c) => c.readyState === WebSocket.OPEN).length,
    );
    expect(openSockets).toBe(0);
  });
});

/** An upgrade through the real route that does not wait for a hello (it may be refused). */
async function connectRaw(client: TestClient, base: string, sessionId: string): Promise<Watcher> {
  const res = await exports.default.fetch(`${ORIGIN}${base}/ai/sessions/${sessionId}/ws`, {
    headers: { upgrade: 'websocket', origin: ORIGIN, cookie: client.cookie! },
  });
  expect(res.status).toBe(101);
  const socket = res.webSocket!;
  socket.accept();
  return new Watcher(socket);
}
