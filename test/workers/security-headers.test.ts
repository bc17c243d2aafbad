/**
 * The security headers of what the Worker answers: API successes and errors, and the session
 * socket's upgrade (accepted and refused); HSTS only on https. The static pages' headers come from
 * app/static/_headers and are read against `wrangler dev` in test/browser/security.browser.test.ts.
 */
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ORIGIN, projectWithOwner, type TestClient } from './client.ts';

const HTTPS_ORIGIN = 'https://localhost';

function expectSecurityHeaders(headers: Headers, label: string): void {
  expect(headers.get('x-content-type-options'), label).toBe('nosniff');
  expect(headers.get('referrer-policy'), label).toBe('no-referrer');
  expect(headers.get('content-security-policy'), label).toBe("default-src 'none'; frame-ancestors 'none'");
  expect(headers.get('permissions-policy'), label).toContain('camera=()');
  expect(headers.get('permissions-policy'), label).toContain('microphone=()');
  expect(headers.get('cross-origin-opener-policy'), label).toBe('same-origin');
}

async function sessionOf(owner: TestClient, base: string): Promise<string> {
  const res = await owner.post(`${base}/ai/sessions`, { targetType: 'workflow', workflowId: 'new-flow', mode: 'create' });
  if (res.status !== 201) throw new Error(`create session failed: ${JSON.stringify(res.error)}`);
  return res.data.sessionId as string;
}

function upgrade(url: string, owner: TestClient | undefined, extra: Record<string, string> = {}) {
  const headers: Record<string, string> = { upgrade: 'websocket', origin: new URL(url).origin, ...extra };
  if (owner?.cookie) headers.cookie = owner.cookie;
  return exports.default.fetch(url, { headers });
}

describe('security headers', () => {
  it('are on API answers, successes and errors, and HSTS only when the request is https', async () => {
    const answers = {
      health: await exports.default.fetch(`${ORIGIN}/api/health`),
      'unknown endpoint': await exports.default.fetch(`${ORIGIN}/api/no-such-thing`),
      'signed out': await exports.default.fetch(`${ORIGIN}/api/projects`),
      'foreign origin': await exports.default.fetch(`${ORIGIN}/api/auth/logout`, { method: 'POST', headers: { origin: 'https://evil.example' } }),
    };
    expect(Object.values(answers).map((r) => r.status)).toEqual([200, 404, 401, 403]);
    for (const [label, res] of Object.entries(answers)) {
      expectSecurityHeaders(res.headers, label);
      expect(res.headers.get('strict-transport-security'), label).toBeNull();
    }

    const secure = await exports.default.fetch(`${HTTPS_ORIGIN}/api/health`);
    expect(secure.status).toBe(200);
    expectSecurityHeaders(secure.headers, 'https health');
    expect(secure.headers.get('strict-transport-security')).toBe('max-age=63072000; includeSubDomains');
  });

  it('are on the socket upgrade, accepted or refused', async () => {
    const { owner, base } = await projectWithOwner();
    const sessionId = await sessionOf(owner, base);
    const path = `${base}/ai/sessions/${sessionId}/ws`;

    const accepted = await upgrade(`${ORIGIN}${path}`, owner);
    expect(accepted.status).toBe(101);
    expectSecurityHeaders(accepted.headers, 'accepted upgrade');
    expect(accepted.headers.get('strict-transport-security')).toBeNull();
    // The copy with the headers still carries the live socket.
    const socket = accepted.webSocket!;
    socket.accept();
    const hello = await new Promise<any>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no hello frame within the time limit')), 5_000);
      socket.addEventListener('message', (event) => {
        if (typeof event.data !== 'string') return;
        const message = JSON.parse(event.data);
        if (message.type !== 'hello') return;
        clearTimeout(timer);
        resolve(message);
      });
    });
    expect(hello.sessionId).toBe(sessionId);
    socket.close(1000, 'done');

    const secure = await upgrade(`${HTTPS_ORIGIN}${path}`, owner);
    expect(secure.status).toBe(101);
    expectSecurityHeaders(secure.headers, 'https upgrade');
    expect(secure.headers.get('strict-transport-security')).toBe('max-age=63072000; includeSubDomains');
    secure.webSocket!.accept();
    secure.webSocket!.close(1000, 'done');

    const refused = {
      'not an upgrade': await exports.default.fetch(`${ORIGIN}${path}`, { headers: { cookie: owner.cookie! } }),
      'foreign origin': await upgrade(`${ORIGIN}${path}`, owner, { origin: 'https://evil.example' }),
      'signed out': await upgrade(`${ORIGIN}${path}`, undefined),
    };
    expect(Object.values(refused).map((r) => r.status)).toEqual([426, 403, 401]);
    for (const [label, res] of Object.entries(refused)) expectSecurityHeaders(res.headers, label);
  });
});
