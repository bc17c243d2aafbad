/**
 * Canary tests: failures that used to print a failed query with its parameters (emails, password
 * hashes and salts) or send raw internal error text to clients. Everything the Worker and the
 * session object log is recorded (console-recorder.ts: they run in the test's isolate) and searched
 * for the canaries, per test here and for the whole file by the log canary (log-canary.ts).
 */
import { env, exports } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';
import { beforeEach, describe, expect, it } from 'vitest';
import { ORIGIN, TestClient } from './client.ts';
import { linesSince, mark } from './console-recorder.ts';
import { guardLogs } from './log-canary.ts';
import { connect, supportDeskProject, stepChangeSet, stepSession, currentStep } from './sessions.ts';
import { sessionObject } from './turns.ts';

guardLogs();

const CANARY_PASSWORD = 'canary-password-Zq7!vX';
const CANARY_NAME = 'Canary Name Wx9';
/** base64 of a 32-byte PBKDF2 hash and of a 16-byte salt, as stored in users. */
const HASH_OR_SALT = /[A-Za-z0-9+/]{43}=|[A-Za-z0-9+/]{22}==/;

/** Where this test's lines start in the file's record. */
let start = 0;

beforeEach(() => {
  start = mark();
});

const lines = () => linesSince(start);

function expectClean(text: string, canaries: string[]) {
  for (const canary of canaries) expect(text).not.toContain(canary);
  expect(text).not.toMatch(HASH_OR_SALT);
  expect(text).not.toMatch(/params:/i);
}

function registration(email: string) {
  return new TestClient().post('/api/auth/register', { email, password: CANARY_PASSWORD, name: CANARY_NAME });
}

describe('no secrets in logs or bodies', () => {
  it('answers a D1 failure during registration with a plain 500 and logs no email, password hash, salt or parameters', async () => {
    const email = `canary-d1-${Date.now()}@example.test`;
    await env.DB.prepare(
      `CREATE TRIGGER fail_canary_user BEFORE INSERT ON users WHEN NEW.email = '${email}' BEGIN SELECT RAISE(ABORT, 'injected failure'); END;`,
    ).run();
    let res;
    try {
      res = await registration(email);
    } finally {
      await env.DB.prepare('DROP TRIGGER fail_canary_user').run();
    }
    expect(res.status).toBe(500);
    expect(res.error).toEqual({ code: 'INTERNAL_ERROR', message: expect.any(String) });
    expectClean(JSON.stringify(res), [email, CANARY_NAME, CANARY_PASSWORD, 'injected failure', 'insert into']);
    // The failure is still reported: one line, with the error's name and the database's reason.
    const logged = lines().join('\n');
    expect(logged).toContain('unhandled error');
    expect(logged).toContain('injected failure');
    expectClean(logged, [email, CANARY_NAME, CANARY_PASSWORD]);
  });

  // An outside probe found these three answering 500 and logging a URIError's or TypeError's stack.
  it('answers a malformed path escape with 404 and a broken upload with 400, logging no unhandled error', async () => {
    const user = new TestClient();
    expect((await user.post('/api/auth/register', { email: `escape-${Date.now()}@example.test`, password: 'long enough pw', name: 'Escape' })).status).toBe(201);
    const project = (await user.post('/api/projects', { name: 'Escapes' })).data.project.id as string;
    for (const path of ['/api/projects/%E0%A4%A', `/api/projects/${project}/ai/sessions/%ff`, '/api/projects/%ff/workflows']) {
      const res = await user.get(path);
      expect(res.status, path).toBe(404);
      expect(res.error?.code).toMatch(/NOT_FOUND$/);
    }
    const cut = await exports.default.fetch(`${ORIGIN}/api/projects/import`, {
      method: 'POST',
      headers: { origin: ORIGIN, cookie: user.cookie!, 'content-type': 'multipart/form-data; boundary=----x' },
      body: '------x\r\nContent-Disposition: form-data; name="file"; filename="a.bmad"\r\n\r\nnot a zip and no closing boundary',
    });
    expect(cut.status).toBe(400);
    expect(((await cut.json()) as { error: { code: string } }).error.code).toBe('PKG_INVALID_FORMAT');
    expect(lines().join('\n')).not.toMatch(/unhandled|URIError|TypeError/);
  });

  it('logs nothing secret when concurrent registrations race for one email', async () => {
    const email = `canary-race-${Date.now()}@example.test`;
    const results = await Promise.all(Array.from({ length: 4 }, () => registration(email)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const res of results.filter((r) => r.status !== 201)) expect(res.error?.code).toBe('AUTH_EMAIL_TAKEN');
    expectClean(lines().join('\n'), [email, CANARY_NAME, CANARY_PASSWORD]);
  });

  it('tells every socket and the HTTP body only a code and a plain message when an apply fails', async () => {
    const { owner, projectId, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const canaryText = 'Canary package text Kp4 that must stay out of logs.';
    const markdown = (await currentStep(owner, base)).markdown.replace('## Instructions', `## Instructions\n\n${canaryText}\n`);
    const staged = await owner.post(`${path}/stage`, { changeSet: stepChangeSet(markdown) });
    expect(staged.status).toBe(200);
    const watcher = await connect(owner, base, sessionId);
    // Every audit insert of this project fails: the apply batch, then the failed-apply audit row (a single query).
    await env.DB.exec(
      `CREATE TRIGGER fail_audit_${projectId} BEFORE INSERT ON ai_audit_events WHEN NEW.project_id = '${projectId}' BEGIN SELECT RAISE(ABORT, 'injected failure'); END;`,
    );
    let res;
    try {
      res = await owner.post(`${path}/apply`, { changeSetId: staged.data.changeSetId, confirmSource: 'ui_manual_apply' });
    } finally {
      await env.DB.exec(`DROP TRIGGER fail_audit_${projectId};`);
    }
    expect(res.status).toBe(500);
    expect(res.error).toMatchObject({ code: 'AI_APPLY_FAILED', causeCode: 'INTERNAL_ERROR' });
    expectClean(JSON.stringify(res.error), ['injected failure', 'D1_ERROR', 'SQLITE', canaryText]);
    const failed = await watcher.event('apply.failed');
    expect(failed.payload).toEqual({ version: staged.data.version, code: 'AI_APPLY_FAILED', message: expect.any(String) });
    expectClean(JSON.stringify(failed), ['injected failure', 'D1_ERROR', 'SQLITE', canaryText]);
    watcher.close();
    const logged = lines().join('\n');
    expect(logged).toContain('ai session: could not audit a failed apply');
    expectClean(logged, [canaryText, owner.email]);
  });

  it('closes a socket the session object failed to set up with 1011 INTERNAL_ERROR, never sending the error text', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const secret = 'Canary internal failure Jd8 at /srv/secret/path.ts:12';
    await runInDurableObject(sessionObject(sessionId), (instance: AiSessionDurableObject) => {
      instance.hub.connect = () => {
        throw new Error(secret);
      };
    });
    const res = await exports.default.fetch(`${ORIGIN}${base}/ai/sessions/${sessionId}/ws`, {
      headers: { upgrade: 'websocket', origin: ORIGIN, cookie: owner.cookie! },
    });
    expect(res.status).toBe(101);
    const socket = res.webSocket!;
    const frames: string[] = [];
    const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.addEventListener('close', (e) => resolve({ code: e.code, reason: e.reason })));
    socket.addEventListener('message', (e) => frames.push(String(e.data)));
    socket.accept();
    expect(await closed).toEqual({ code: 1011, reason: 'INTERNAL_ERROR' });
    expect(frames.join('\n')).not.toContain('Canary internal failure');
    expect(frames.join('\n')).not.toContain('/srv/secret');
    expect(lines().join('\n')).toContain('ai session: a socket could not be set up');
  });
});
