import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ORIGIN, TestClient, signedInClient } from './client.ts';

describe('accounts', () => {
  it('registers, signs in with the cookie, and reports who I am', async () => {
    const client = new TestClient();
    const res = await client.post('/api/auth/register', { email: 'Grace@Example.test', password: 'long enough pw', name: 'Grace' });
    expect(res.status).toBe(201);
    expect(res.data.user).toMatchObject({ email: 'grace@example.test', name: 'Grace' });
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).not.toMatch(/Secure/i); // localhost
    const me = await client.get('/api/auth/me');
    expect(me.status).toBe(200);
    expect(me.data.user.email).toBe('grace@example.test');
  });

  it('sets a Secure cookie when not on localhost', async () => {
    const res = await (await import('cloudflare:workers')).exports.default.fetch('https://builder.example.com/api/auth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://builder.example.com' },
      body: JSON.stringify({ email: 'secure@example.test', password: 'long enough pw', name: 'S' }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('set-cookie')).toMatch(/Secure/);
  });

  it('stores the password hashed with a per-user salt and the session token hashed', async () => {
    const a = await signedInClient('Hash');
    const b = await signedInClient('Hash');
    const rows = await env.DB.prepare('SELECT password_hash, password_salt, password_iterations FROM users WHERE id IN (?, ?)')
      .bind(a.userId, b.userId)
      .all<{ password_hash: string; password_salt: string; password_iterations: number }>();
    expect(rows.results).toHaveLength(2);
    expect(rows.results[0]!.password_hash).not.toContain('correct horse');
    expect(rows.results[0]!.password_salt).not.toBe(rows.results[1]!.password_salt);
    expect(rows.results[0]!.password_hash).not.toBe(rows.results[1]!.password_hash);
    expect(rows.results[0]!.password_iterations).toBe(100_000);
    const token = a.cookie!.split('=')[1]!;
    const stored = await env.DB.prepare('SELECT count(*) AS n FROM auth_sessions WHERE token_hash = ?').bind(token).first<{ n: number }>();
    expect(stored!.n).toBe(0);
  });

  it('refuses a duplicate email without changing the first account', async () => {
    const first = await signedInClient('Dup');
    const again = await new TestClient().post('/api/auth/register', { email: first.email, password: 'another password', name: 'Other' });
    expect(again.status).toBe(409);
    expect(again.error?.code).toBe('AUTH_EMAIL_TAKEN');
    const login = await new TestClient().post('/api/auth/login', { email: first.email, password: 'correct horse battery' });
    expect(login.status).toBe(200);
    expect(login.data.user.name).toBe('Dup');
  });

  it('answers a wrong password with AUTH_INVALID_CREDENTIALS and throttles repeated failures', async () => {
    const user = await signedInClient('Throttle');
    const anon = new TestClient();
    for (let i = 0; i < 5; i++) {
      const res = await anon.post('/api/auth/login', { email: user.email, password: 'wrong password' });
      expect(res.status).toBe(401);
      expect(res.error?.code).toBe('AUTH_INVALID_CREDENTIALS');
    }
    const blocked = await anon.post('/api/auth/login', { email: user.email, password: 'correct horse battery' });
    expect(blocked.status).toBe(429);
    expect(blocked.error?.code).toBe('RATE_LIMITED');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    // An unknown email fails the same way as a wrong password (no account oracle).
    const unknown = await anon.post('/api/auth/login', { email: 'nobody@example.test', password: 'whatever' });
    expect(unknown.status).toBe(401);
    expect(unknown.error?.code).toBe('AUTH_INVALID_CREDENTIALS');
  });

  it('distinguishes missing, invalid and expired sessions', async () => {
    const anon = new TestClient();
    expect((await anon.get('/api/auth/me')).error?.code).toBe('AUTH_MISSING_TOKEN');
    anon.cookie = 'bmad_session=abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzab';
    const invalid = await anon.get('/api/auth/me');
    expect(invalid.status).toBe(401);
    expect(invalid.error?.code).toBe('AUTH_INVALID_TOKEN');

    const user = await signedInClient('Expired');
    await env.DB.prepare("UPDATE auth_sessions SET expires_at = '2000-01-01T00:00:00.000Z' WHERE user_id = ?").bind(user.userId).run();
    const expired = await user.get('/api/auth/me');
    expect(expired.status).toBe(401);
    expect(expired.error?.code).toBe('AUTH_TOKEN_EXPIRED');
  });

  it('signs out: the cookie no longer works', async () => {
    const user = await signedInClient('Bye');
    const cookie = user.cookie;
    expect((await user.post('/api/auth/logout')).status).toBe(200);
    const stale = new TestClient();
    stale.cookie = cookie;
    expect((await stale.get('/api/auth/me')).error?.code).toBe('AUTH_INVALID_TOKEN');
  });

  it('rejects bad bodies with clear codes', async () => {
    const anon = new TestClient();
    const malformed = await anon.request('POST', '/api/auth/register', '{"email": ', {});
    expect(malformed.status).toBe(400);
    expect(malformed.error?.code).toBe('INVALID_JSON');
    const wrongType = await anon.post('/api/auth/register', { email: 42, password: true, name: [] });
    expect(wrongType.status).toBe(422);
    expect(wrongType.error?.code).toBe('VALIDATION_FAILED');
    expect([...new Set(wrongType.error?.details?.map((d) => d.path))].sort()).toEqual(['email', 'name', 'password']);
    const unknown = await anon.post('/api/auth/register', { email: 'x@example.test', password: 'long enough pw', name: 'X', admin: true });
    expect(unknown.status).toBe(422);
    expect(unknown.error?.details?.[0]?.message).toContain('admin');
    const notJson = await anon.request('POST', '/api/auth/login', '<email>a</email>', { 'content-type': 'application/xml' });
    expect(notJson.status).toBe(415);
    const huge = await anon.post('/api/auth/register', { email: 'big@example.test', password: 'x'.repeat(2_000_000), name: 'Big' });
    expect(huge.status).toBe(413);
    expect(huge.error?.code).toBe('PAYLOAD_TOO_LARGE');
    const users = await env.DB.prepare("SELECT count(*) AS n FROM users WHERE email IN ('x@example.test', 'big@example.test')").first<{ n: number }>();
    expect(users!.n).toBe(0);
  });

  it('refuses state-changing requests from a foreign origin', async () => {
    const user = await signedInClient('Csrf');
    const res = await user.request('POST', '/api/projects', { name: 'Evil' }, { origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(res.error?.code).toBe('FORBIDDEN_ORIGIN');
    const crossSite = await user.request('POST', '/api/projects', { name: 'Evil' }, { 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    expect((await user.get('/api/projects')).data.projects).toHaveLength(0);
    expect(ORIGIN).toBe('http://localhost');
  });

  // A form planted in text someone else reads (a comment, an asset preview) would post from our own
  // origin with the reader's cookie: a browser marks it a navigation, and only a form sends these encodings.
  it('refuses a form submission from its own origin, whatever the route, and keeps the app\'s own requests working', async () => {
    const user = await signedInClient('FormPost');
    const project = await user.post('/api/projects', { name: 'Targets' });
    const projectId = project.data.project.id as string;
    const formLike: Record<string, string>[] = [
      { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' },
      // A browser without fetch metadata: the form's encoding alone gives it away.
      { 'content-type': 'application/x-www-form-urlencoded' },
      { 'content-type': 'text/plain' },
      { 'content-type': 'multipart/form-data; boundary=x' },
      // A navigation with a JSON-looking type is still a form's (or a planted link's) navigation.
      { 'content-type': 'application/json', 'sec-fetch-mode': 'navigate' },
    ];
    for (const headers of formLike) {
      for (const [method, path] of [['POST', '/api/auth/logout'], ['POST', '/api/auth/logout-all'], ['PATCH', `/api/projects/${projectId}`], ['DELETE', `/api/projects/${projectId}`]] as const) {
        const res = await user.request(method, path, headers['content-type']!.startsWith('application/json') ? '{}' : 'name=Owned', headers);
        expect(res.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(403);
        expect(res.error?.code).toBe('FORBIDDEN_FORM_POST');
      }
    }
    // Nothing happened: still signed in, the project kept under its name.
    expect((await user.get(`/api/projects/${projectId}`)).data.project.name).toBe('Targets');
    // The app's own requests (fetch: same-origin, cors mode, JSON or no body) still pass.
    const renamed = await user.request('PATCH', `/api/projects/${projectId}`, { name: 'Renamed' }, { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' });
    expect(renamed.status).toBe(200);
    const out = await user.request('POST', '/api/auth/logout', undefined, { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' });
    expect(out.status).toBe(200);
    expect((await user.get('/api/auth/me')).status).toBe(401);
  });
});
