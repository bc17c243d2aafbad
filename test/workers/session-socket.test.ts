import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { PING_FRAME, PONG_FRAME } from '../../shared/protocol-limits.ts';
import { ORIGIN, projectWithOwner, signedInClient, type TestClient } from './client.ts';

/** A workflow-create session made through the API (the project starts empty). */
async function insertSession(projectId: string, owner: TestClient): Promise<string> {
  const res = await owner.post(`/api/projects/${projectId}/ai/sessions`, { targetType: 'workflow', workflowId: 'new-flow', mode: 'create' });
  if (res.status !== 201) throw new Error(`create session failed: ${JSON.stringify(res.error)}`);
  return res.data.sessionId as string;
}

async function upgrade(client: TestClient | undefined, path: string, origin = ORIGIN) {
  const headers: Record<string, string> = { upgrade: 'websocket', origin };
  if (client?.cookie) headers.cookie = client.cookie;
  return exports.default.fetch(`${ORIGIN}${path}`, { headers });
}

/** The next JSON frame other than presence (Yjs binary frames are skipped), within a bounded wait. */
function nextMessage(socket: WebSocket, timeoutMs = 5_000): Promise<any> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no frame within the time limit')), timeoutMs);
    const onMessage = (event: MessageEvent) => {
      if (typeof event.data !== 'string') return;
      const message = JSON.parse(event.data);
      if (message.type === 'presence') return;
      clearTimeout(timer);
      socket.removeEventListener('message', onMessage);
      resolve(message);
    };
    socket.addEventListener('message', onMessage);
  });
}

describe('the session socket', () => {
  it('greets an authenticated member with a hello frame carrying the verified identity', async () => {
    const { owner, projectId, base, member } = await projectWithOwner();
    const viewer = await member('viewer');
    const sessionId = await insertSession(projectId, owner);
    for (const [client, role] of [[owner, 'owner'], [viewer, 'viewer']] as const) {
      const res = await upgrade(client, `${base}/ai/sessions/${sessionId}/ws`);
      expect(res.status).toBe(101);
      const socket = res.webSocket!;
      socket.accept();
      const hello = await nextMessage(socket);
      expect(hello).toEqual({
        type: 'hello',
        protocolVersion: 1,
        sessionId,
        you: { userId: client.userId, name: role === 'owner' ? 'Owner' : 'Victor', role },
        lastSeq: 1,
        status: 'active',
        canEdit: role === 'owner',
      });
      socket.send('not json');
      expect(await nextMessage(socket)).toMatchObject({ type: 'error', code: 'INVALID_JSON' });
      socket.send(JSON.stringify({ type: 'launch-missiles' }));
      expect(await nextMessage(socket)).toMatchObject({ type: 'error', code: 'PROTOCOL_ERROR' });
      socket.close(1000, 'done');
    }
  });

  it('answers the keep-alive ping with a pong, and nothing else (PROTOCOL.md "Keep-alive")', async () => {
    const { owner, projectId, base } = await projectWithOwner();
    const sessionId = await insertSession(projectId, owner);
    const res = await upgrade(owner, `${base}/ai/sessions/${sessionId}/ws`);
    const socket = res.webSocket!;
    socket.accept();
    expect(await nextMessage(socket)).toMatchObject({ type: 'hello' });
    socket.send(PING_FRAME);
    expect(await nextMessage(socket)).toEqual(JSON.parse(PONG_FRAME));
    socket.send(PING_FRAME);
    expect(await nextMessage(socket)).toEqual(JSON.parse(PONG_FRAME));
    socket.close(1000, 'done');
  });

  it('refuses anonymous users, non-members, foreign origins, unknown sessions and plain GETs', async () => {
    const { owner, projectId, base } = await projectWithOwner();
    const sessionId = await insertSession(projectId, owner);
    const path = `${base}/ai/sessions/${sessionId}/ws`;
    expect((await upgrade(undefined, path)).status).toBe(401);
    const stranger = await signedInClient('Stranger');
    expect((await upgrade(stranger, path)).status).toBe(404);
    expect((await upgrade(owner, path, 'https://evil.example')).status).toBe(403);
    expect((await upgrade(owner, `${base}/ai/sessions/as_missing/ws`)).status).toBe(404);
    const other = await projectWithOwner();
    // A session id from another project is not reachable through this project.
    expect((await upgrade(other.owner, `${other.base}/ai/sessions/${sessionId}/ws`)).status).toBe(404);
    const plain = await exports.default.fetch(`${ORIGIN}${path}`, { headers: { cookie: owner.cookie! } });
    expect(plain.status).toBe(426);
  });

  it('does not trust identity headers sent by the client', async () => {
    const { projectId, base, member, owner } = await projectWithOwner();
    const viewer = await member('viewer');
    const sessionId = await insertSession(projectId, owner);
    const res = await exports.default.fetch(`${ORIGIN}${base}/ai/sessions/${sessionId}/ws`, {
      headers: { upgrade: 'websocket', origin: ORIGIN, cookie: viewer.cookie!, 'x-bmad-role': 'owner', 'x-bmad-user-id': owner.userId },
    });
    const socket = res.webSocket!;
    socket.accept();
    const hello = await nextMessage(socket);
    expect(hello.you).toMatchObject({ userId: viewer.userId, role: 'viewer' });
    socket.close(1000, 'done');
  });
});
