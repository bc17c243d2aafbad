// The demo seed `npm start` runs: the Chinese example project's zip holds exactly the test
// package's files, byte for byte, and reads as a Chinese package; and the seed signs in (or
// registers) against the product's API, here faked at the HTTP boundary.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { strFromU8, unzipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { packageFromFiles, validatePackage } from '../shared/bmad/index.ts';
import { detectContentLanguage } from '../shared/i18n/content-language.ts';
import { loadPackageDir, PACKAGES_DIR } from '../test/fixtures/packages.ts';
import { DEMO_USER, DEMO_VIEWER, ZH_PACKAGE_DIR, ZH_PROJECT_NAME, seedDemo, zipFolder } from './seed-demo.ts';

describe('the seeded Chinese example', () => {
  it('uploads the zh-review package as it is: every file, byte for byte, valid and detected as Chinese', async () => {
    const files = new Map(Object.entries(unzipSync(await zipFolder(ZH_PACKAGE_DIR))).map(([path, bytes]) => [path, strFromU8(bytes)]));
    expect(files).toEqual(loadPackageDir(new URL('zh-review/', PACKAGES_DIR)));
    const pkg = packageFromFiles(files);
    expect(validatePackage(pkg).valid).toBe(true);
    expect(detectContentLanguage(pkg)).toBe('zh');
  });
});

/** One request the fake API answered. */
interface Seen {
  method: string;
  path: string;
  body: any;
}

type Answer = { status: number; data?: unknown; error?: unknown };

/**
 * The product's API faked at the HTTP boundary: a real local server answering the few routes the
 * seed calls. Both demo projects exist already, so the seed uploads nothing.
 */
async function fakeApi(answer: (seen: Seen) => Answer | undefined): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', path: req.url ?? '', body: text ? JSON.parse(text) : undefined };
      seen.push(request);
      const fallback: Answer =
        request.path === '/api/projects'
          ? { status: 200, data: { projects: [{ id: 'prj_en', name: 'Vendor onboarding (demo)' }, { id: 'prj_zh', name: ZH_PROJECT_NAME }] } }
          : { status: 200, data: {} };
      const { status, data = null, error = null } = answer(request) ?? fallback;
      res.writeHead(status, { 'content-type': 'application/json', 'set-cookie': 'bmad_session=s; Path=/' });
      res.end(JSON.stringify({ data: error ? null : data, error }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function api(answer: (seen: Seen) => Answer | undefined) {
  const server = await fakeApi(answer);
  servers.push(server);
  return server;
}

const LOGIN = 'POST /api/auth/login';
const REGISTER = 'POST /api/auth/register';
const routeOf = (seen: Seen) => `${seen.method} ${seen.path}`;

describe('the demo seed signing in', () => {
  it.each([
    [
      429,
      {
        code: 'RATE_LIMITED',
        message: 'Too many sign-in attempts. Try again in 30 seconds.',
        hints: ['Wait for the time shown, then try again.'],
        retryAfterSeconds: 30,
      },
    ],
    [500, { code: 'INTERNAL_ERROR', message: 'Something went wrong on our side. Try again in a moment.', hints: ['Try again in a moment.'] }],
  ])('stops on a %i with the server\'s code, message and hint, and never tries to register', async (status, error) => {
    const server = await api((seen) => (routeOf(seen) === LOGIN ? { status, error } : undefined));
    const failure = await seedDemo(server.url).then(
      () => null,
      (e: Error) => e.message,
    );
    expect(failure).toContain(`(${status})`);
    expect(failure).toContain(error.code);
    expect(failure).toContain(error.message);
    expect(failure).toContain(error.hints[0]);
    expect(server.seen.map(routeOf)).not.toContain(REGISTER);
  });

  it('registers the demo users only when the server answers 401 wrong credentials', async () => {
    const server = await api((seen) =>
      routeOf(seen) === LOGIN ? { status: 401, error: { code: 'AUTH_INVALID_CREDENTIALS', message: 'The email or password is not correct.' } } : undefined,
    );
    await seedDemo(server.url);
    const registered = server.seen.filter((s) => routeOf(s) === REGISTER).map((s) => s.body.email);
    expect(registered).toEqual([DEMO_VIEWER.email, DEMO_USER.email]);
  });

  it('names the status of an answer that is not JSON', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>Bad gateway</html>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push({ close: () => new Promise((resolve) => server.close(() => resolve())) });
    const failure = await seedDemo(`http://127.0.0.1:${(server.address() as AddressInfo).port}`).then(
      () => null,
      (e: Error) => e.message,
    );
    expect(failure).toContain('POST /api/auth/login failed (502): HTTP_502 <html>Bad gateway</html>');
  });
});

describe('the demo seed and the demo user\'s AI settings', () => {
  const PROFILE = '/api/users/me/llm-profile';
  const MODEL_URL = 'http://127.0.0.1:9999/v1';

  async function seedWith(profile: { provider: string; preset: string | null; model: string | null }) {
    const server = await api((seen) => (routeOf(seen) === `GET ${PROFILE}` ? { status: 200, data: profile } : undefined));
    await seedDemo(server.url, { scriptedModelUrl: MODEL_URL });
    return server.seen.filter((s) => routeOf(s) === `PUT ${PROFILE}`).map((s) => s.body);
  }

  it('keeps a provider, model and key the demo user saved in Settings → AI', async () => {
    expect(await seedWith({ provider: 'openai-compatible', preset: 'deepseek', model: 'deepseek-chat' })).toEqual([]);
    expect(await seedWith({ provider: 'openai-compatible', preset: 'local', model: 'qwen2.5:7b-instruct' })).toEqual([]);
  });

  it('sets the scripted demo model when the demo user has no settings of their own, or still uses it (its port may have moved)', async () => {
    for (const profile of [
      { provider: 'disabled', preset: null, model: null },
      { provider: 'openai-compatible', preset: 'scripted-demo', model: 'scripted-demo' },
    ]) {
      const saved = await seedWith(profile);
      expect(saved).toHaveLength(1);
      expect(saved[0]).toMatchObject({ preset: 'scripted-demo', model: 'scripted-demo', baseUrl: MODEL_URL });
    }
  });
});
