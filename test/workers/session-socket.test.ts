import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ORIGIN, projectWithOwner, signedInClient, type TestClient } from './client.ts';

async function insertSession(projectId: string, userId: string): Promise<string> {
  const id = `as_test${Math.random().toString(36).slice(2)}`;
  await env.DB.prepare(
    "INSERT INTO ai_sessions (id, project_id, user_id, target_type, target_id, mode) VALUES (?, ?, ?, 'workflow', 'w', 'optimize')",
  )
    .bind(id, projectId, userId)
    .run();
  return id;
}

async function upgrade(client: TestClient | undefined, path: string, origin = ORIGIN) {
  const headers: Record<string, string> = { upgrade: 'websocket', origin };
  if (client?.cookie) headers.cookie = client.cookie;
  return exports.default.fetch(`${ORIGIN}${path}`, { headers });
}

/** The next text frame, or a failure after a bounded wait (sockets never hang a test). */
function nextMessage(socket: WebSocket, timeoutMs = 5_000): Promise<any> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no frame within the time limit')), timeoutMs);
    socket.addEventListener(
      'message',
      (event) => {
        clearTimeout(timer);
        resolve(JSON.parse(event.data as string));
      },
      { once: true },
    );
  });
}

describe('the session socket', () => {
  it('greets an authenticated member with a hello frame carrying the verified identity', async () => {
    const { owner, projectId, base, member } = await projectWithOwner();
    const viewer = await member('viewer');
    const sessionId = await insertSession(projectId, owner.userId);
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
        lastSeq: 0,
      });
      socket.send('not json');
      expect(await nextMessage(socket)).toMatchObject({ type: 'error', code: 'INVALID_JSON' });
      socket.send(JSON.stringify({ type: 'launch-missiles' }));
      expect(await nextMessage(socket)).toMatchObject({ type: 'error', code: 'BAD_REQUEST' });
      socket.close(1000, 'done');
    }
  });

  it('refuses anonymous users, non-members, foreign origins, unknown sessions and plain GETs', async () => {
    const { owner, projectId, base } = await projectWithOwner();
    const sessionId = await insertSession(projectId, owner.userId);
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
    const sessionId = await insertSession(projectId, owner.userId);
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
