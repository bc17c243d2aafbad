/**
 * Route preloads (worker/auth/preload.ts): the reads a route sends with who-is-asking reach only a
 * caller the route lets in. A caller signed out, with a bad or expired cookie, not a member, or
 * below the route's role gets the answer a route without preloads gives, nothing is written, and
 * the preloaded rows are never decoded.
 */
import { env } from 'cloudflare:workers';
import { Hono } from 'hono';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from '../../worker/app-env.ts';
import { ApiError } from '../../shared/api-error.ts';
import { d1Session } from '../../worker/middleware/d1-session.ts';
import { requireUser } from '../../worker/middleware/require-user.ts';
import { projectAccess } from '../../worker/middleware/project-access.ts';
import { takePreloaded } from '../../worker/middleware/preloaded.ts';
import { definePreload, preloadScope, type Preload } from '../../worker/auth/preload.ts';
import { createDb } from '../../worker/db/client.ts';
import { storedPackageQueries } from '../../worker/package-io/stored-package.ts';
import { d1RoundTripLog, d1RoundTrips, resetD1RoundTrips } from '../../worker/db/instrumented-d1.ts';
import { ORIGIN, signedInClient, TestClient } from './client.ts';
import { SESSION_COOKIE } from '../../worker/auth/cookies.ts';
import { sha256Hex } from '../../shared/hash.ts';
import { randomToken } from '../../shared/ids.ts';
import { currentStep, supportDeskProject, STEP, WF } from './sessions.ts';

type Caller = 'signed out' | 'bad cookie' | 'expired' | 'non-member' | 'viewer';
const CALLERS: Caller[] = ['signed out', 'bad cookie', 'expired', 'non-member', 'viewer'];

/** A cookie maker per refused caller: each call a cookie as the caller holds it (an expired login is deleted when shown, so each call makes a new one). */
async function callers(member: (role: 'editor' | 'viewer', name?: string) => Promise<TestClient & { userId: string }>): Promise<Record<Caller, () => Promise<string | undefined>>> {
  // An editor whose login has expired: the role alone would let them in.
  const expiredUser = await member('editor', 'Ex');
  const stranger = await signedInClient('Stranger');
  const viewer = await member('viewer');
  return {
    'signed out': async () => undefined,
    // Well-formed, so it is hashed and looked up (with the preloads), but no login has it.
    'bad cookie': async () => `${SESSION_COOKIE}=${'a'.repeat(52)}`,
    expired: async () => {
      const token = randomToken(32);
      await env.DB.prepare('INSERT INTO auth_sessions (token_hash, user_id, expires_at) VALUES (?, ?, ?)')
        .bind(await sha256Hex(token), expiredUser.userId, '2000-01-01T00:00:00.000Z')
        .run();
      return `${SESSION_COOKIE}=${token}`;
    },
    'non-member': async () => stranger.cookie,
    viewer: async () => viewer.cookie,
  };
}

/** A client holding `cookie` (or none). */
function clientWith(cookie: string | undefined): TestClient {
  const client = new TestClient();
  client.cookie = cookie;
  return client;
}

/** A probe preload and a small app of one project route guarded like the real ones, with and without it. */
function probeApps() {
  const decoded: string[] = [];
  const probe: Preload<string> = definePreload({
    method: 'PUT',
    route: '/api/projects/:projectId/probe',
    queries: (db, scope) => [db.select({ name: sql<string>`name` }).from(sql`projects`).where(sql`id = ${scope.projectId} and ${scope.member}`)],
    decode: (rows) => {
      const name = (rows[0] as Array<{ name: string }>)[0]?.name ?? '(none)';
      decoded.push(name);
      return name;
    },
  });
  const build = (preloads: Preload<unknown>[]) =>
    new Hono<AppEnv>()
      .use(d1Session())
      .use('/api/projects/*', requireUser(preloads))
      .put('/api/projects/:projectId/probe', projectAccess(), (c) => c.json({ preloaded: takePreloaded(c, probe) ?? null, again: takePreloaded(c, probe) ?? null }))
      .onError((error, c) => {
        if (error instanceof ApiError) return c.json({ data: null, error: error.toBody() }, error.status as 400);
        throw error;
      });
  return { decoded, withProbe: build([probe as Preload<unknown>]), without: build([]) };
}

async function send(app: Hono<AppEnv>, path: string, cookie: string | undefined) {
  const headers: Record<string, string> = { origin: ORIGIN };
  if (cookie) headers.cookie = cookie;
  const res = await app.request(`${ORIGIN}${path}`, { method: 'PUT', headers }, env);
  return { status: res.status, body: await res.json(), cookie: res.headers.get('set-cookie') };
}

describe('the preload mechanism', () => {
  it('answers a refused caller exactly as without the preload and never decodes its rows', async () => {
    const { projectId, member } = await supportDeskProject();
    const who = await callers(member);
    const { decoded, withProbe, without } = probeApps();
    const path = `/api/projects/${projectId}/probe`;
    for (const caller of CALLERS) {
      const plain = await send(without, path, await who[caller]());
      const preloaded = await send(withProbe, path, await who[caller]());
      expect(plain.status, caller).toBeGreaterThanOrEqual(401);
      expect(preloaded, caller).toEqual(plain);
    }
    expect(decoded).toEqual([]);
  });

  it('hands a member the route its rows once, read in the who-is-asking round trip', async () => {
    const { owner, projectId } = await supportDeskProject();
    const { decoded, withProbe } = probeApps();
    const { name } = (await env.DB.prepare('SELECT name FROM projects WHERE id = ?').bind(projectId).first<{ name: string }>())!;
    resetD1RoundTrips();
    const answer = await send(withProbe, `/api/projects/${projectId}/probe`, owner.cookie);
    expect(d1RoundTrips(), d1RoundTripLog().join('\n')).toBe(1);
    // The second take finds nothing: rows from before a route's own write are never handed out twice.
    expect(answer).toMatchObject({ status: 200, body: { preloaded: name, again: null } });
    expect(decoded).toEqual([name]);
  });
  it("reads none of the project's rows for a login outside it: the guard is in each read's WHERE", async () => {
    const { owner, projectId, member } = await supportDeskProject();
    const viewer = await member('viewer');
    const stranger = await signedInClient('Outsider');
    const db = createDb(env.DB);
    const tokenOf = (client: TestClient) => client.cookie!.slice(`${SESSION_COOKIE}=`.length).split(';')[0]!;
    const rowsFor = async (tokenHash: string) => {
      const reads = await db.batch(storedPackageQueries(db, projectId, preloadScope(projectId, null, tokenHash).member));
      return reads.map((rows) => rows.length);
    };
    const [projectRows, workflowRows, stepRows] = await rowsFor(await sha256Hex(tokenOf(owner)));
    expect(projectRows).toBe(1);
    expect(workflowRows).toBeGreaterThan(0);
    expect(stepRows).toBeGreaterThan(0);
    // A viewer may read the package anyway; a stranger and an unknown login read nothing.
    expect((await rowsFor(await sha256Hex(tokenOf(viewer))))[0]).toBe(1);
    expect(await rowsFor(await sha256Hex(tokenOf(stranger)))).toEqual([0, 0, 0, 0]);
    expect(await rowsFor(await sha256Hex('a'.repeat(52)))).toEqual([0, 0, 0, 0]);
  });
});

type Answer = Awaited<ReturnType<TestClient['post']>>;

/** A refused caller's answer: a viewer gets the role refusal, anyone else what a project that does not exist gets. */
function expectRefused(caller: Caller, answer: Answer, elsewhere: Answer): void {
  expect(answer.data, caller).toBeNull();
  if (caller === 'viewer') {
    expect(answer.status).toBe(403);
    expect(answer.error).toEqual({
      code: 'FORBIDDEN',
      message: 'This needs the editor role on the project; you are a viewer.',
      hints: ['Ask a project owner to change your role.'],
    });
  } else {
    expect(answer.status, caller).toBe(caller === 'non-member' ? 404 : 401);
    expect({ status: answer.status, error: answer.error }, caller).toEqual({ status: elsewhere.status, error: elsewhere.error });
  }
}

describe('the preloaded routes to a caller they refuse', () => {
  it('a step save: the same answers as for a project that does not exist (or the role refusal), nothing written', async () => {
    const { owner, base, member } = await supportDeskProject();
    const who = await callers(member);
    const step = await currentStep(owner, base);
    const body = { markdown: `${step.markdown}\nnever saved\n`, baseRevision: step.revision };
    const stepPath = (projectBase: string) => `${projectBase}/workflows/${WF}/steps/${STEP}`;
    for (const caller of CALLERS) {
      const answer = await clientWith(await who[caller]()).put(stepPath(base), body);
      const elsewhere = await clientWith(await who[caller]()).put(stepPath('/api/projects/prj_doesnotexist'), body);
      expectRefused(caller, answer, elsewhere);
    }
    const after = await currentStep(owner, base);
    expect(after).toEqual(step);
  });

  it('creating a session: the same answers as for a project that does not exist (or the role refusal), no session row', async () => {
    const { owner, base, projectId, member } = await supportDeskProject();
    const who = await callers(member);
    const body = { workflowId: WF, targetType: 'step', targetId: STEP, mode: 'optimize' };
    const rows = async () => (await env.DB.prepare('SELECT COUNT(*) AS n FROM ai_sessions WHERE project_id = ?').bind(projectId).first<{ n: number }>())!.n;
    for (const caller of CALLERS) {
      const answer = await clientWith(await who[caller]()).post(`${base}/ai/sessions`, body);
      const elsewhere = await clientWith(await who[caller]()).post('/api/projects/prj_doesnotexist/ai/sessions', body);
      expectRefused(caller, answer, elsewhere);
    }
    expect(await rows()).toBe(0);
    // The owner still creates one.
    expect((await owner.post(`${base}/ai/sessions`, body)).status).toBe(201);
    expect(await rows()).toBe(1);
  });
});
