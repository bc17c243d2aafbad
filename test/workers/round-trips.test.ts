/**
 * Sequential D1 round trips per hot path (issue 19), counted by the wrapper at the database
 * boundary (worker/db/instrumented-d1.ts; the Workers-pool config sets D1_COUNT_ROUND_TRIPS), and
 * read-your-writes through the D1 Sessions API with a lagging replica injected there.
 * Counts include the session object's queries: it runs in the same isolate as the Worker.
 */
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { afterEach, describe, expect, it } from 'vitest';
import {
  d1RoundTripLog,
  d1RoundTrips,
  instrumentD1,
  resetD1RoundTrips,
  startLaggingReplica,
  stopLaggingReplica,
} from '../../worker/db/instrumented-d1.ts';
import { D1_BOOKMARK_HEADER } from '../../shared/d1-bookmark.ts';
import { app } from '../../worker/app.ts';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';
import type { SessionMeta } from '../../shared/ai/session.ts';
import { ORIGIN, TestClient } from './client.ts';
import { connect, currentStep, stepChangeSet, stepSession, supportDeskProject, WF, STEP } from './sessions.ts';

/** The round trips `run` made, with their SQL in the failure message. */
async function counted<T>(run: () => Promise<T>): Promise<{ result: T; trips: number; log: string }> {
  resetD1RoundTrips();
  const result = await run();
  return { result, trips: d1RoundTrips(), log: d1RoundTripLog().join('\n') };
}

function improved(markdown: string, marker = 'Cite the policy section for every violation.') {
  return markdown.replace('3. Set `variables.missingDetails`', `3. ${marker}\n4. Set \`variables.missingDetails\``);
}

afterEach(() => stopLaggingReplica());

describe('the counting wrapper', () => {
  it('is the binding itself unless an env var asks for it', () => {
    expect(instrumentD1(env.DB, {})).toBe(env.DB);
    expect(instrumentD1(env.DB, { D1_COUNT_ROUND_TRIPS: 'false', D1_INJECT_LATENCY_MS: '0' })).toBe(env.DB);
    expect(instrumentD1(env.DB, { D1_COUNT_ROUND_TRIPS: 'true' })).not.toBe(env.DB);
  });

  it('counts one round trip per statement call, per batch and per exec, sessions included', async () => {
    const db = instrumentD1(env.DB, { D1_COUNT_ROUND_TRIPS: 'true' });
    const { trips } = await counted(async () => {
      const one = db.prepare('SELECT ? AS n').bind(1);
      expect(await one.first()).toEqual({ n: 1 });
      expect((await one.all()).results).toEqual([{ n: 1 }]);
      await one.run();
      expect(await one.raw()).toEqual([[1]]);
      const rows = await db.batch([db.prepare('SELECT 1 AS a'), db.prepare('SELECT 2 AS b')]);
      expect(rows.map((r) => r.results)).toEqual([[{ a: 1 }], [{ b: 2 }]]);
      await db.exec('SELECT 1');
      const session = db.withSession('first-primary');
      expect(await session.prepare('SELECT 3 AS c').first()).toEqual({ c: 3 });
      await session.batch([session.prepare('SELECT 4'), session.prepare('SELECT 5')]);
    });
    expect(trips).toBe(4 + 1 + 1 + 2);
  });

  it('sleeps the injected latency before every round trip', async () => {
    const db = instrumentD1(env.DB, { D1_INJECT_LATENCY_MS: '25' });
    const started = Date.now();
    const { trips } = await counted(async () => {
      await db.prepare('SELECT 1').first();
      await db.batch([db.prepare('SELECT 1'), db.prepare('SELECT 2')]);
    });
    expect(trips).toBe(2);
    // A lower bound only: the two sequential round trips waited at least 2 × 25 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
  });
});

describe("the bench's read-out of the counter", () => {
  const READ_OUT = '/api/__bench/d1-round-trips';

  it('answers the count and the SQL of each round trip before any auth, and resets it when asked', async () => {
    const { owner, base } = await supportDeskProject();
    const anonymous = new TestClient();
    await anonymous.get(`${READ_OUT}?reset=1`);
    expect((await owner.get(`${base}/workflows`)).status).toBe(200);
    const read = await anonymous.get(`${READ_OUT}?reset=1`);
    expect(read.status).toBe(200);
    expect(read.data.roundTrips).toBeGreaterThan(0);
    expect(read.data.log).toHaveLength(read.data.roundTrips);
    // Reading it made no round trip, and the reset took.
    expect((await anonymous.get(READ_OUT)).data).toEqual({ roundTrips: 0, log: [] });
  });

  it('does not exist without D1_COUNT_ROUND_TRIPS: 404 like any unknown API address, the counter untouched', async () => {
    resetD1RoundTrips();
    await instrumentD1(env.DB, { D1_COUNT_ROUND_TRIPS: 'true' }).prepare('SELECT 1').first();
    const before = d1RoundTrips();
    expect(before).toBe(1);
    for (const vars of [{ D1_COUNT_ROUND_TRIPS: undefined }, { D1_COUNT_ROUND_TRIPS: 'false', D1_INJECT_LATENCY_MS: '20' }]) {
      const res = await app.request(`${ORIGIN}${READ_OUT}?reset=1`, { headers: { origin: ORIGIN } }, { ...env, ...vars });
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    }
    expect(d1RoundTrips()).toBe(before);
  });
});

describe('round trips per hot path', () => {
  it('knows who is asking in one round trip, and a socket frame costs none', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    // Before: cookie → user, the role, the session row: 3 sequential queries before the route.
    const request = await counted(() => owner.patch(`${base}/ai/sessions/${sessionId}`, { tokenBudget: 5000 }));
    expect(request.result.status).toBe(200);
    expect(request.trips, request.log).toBeLessThanOrEqual(1);

    const watcher = await connect(owner, base, sessionId, null);
    const frame = await counted(async () => {
      watcher.send({ type: 'hello', lastSeq: 0 });
      return watcher.until(() => watcher.texts().find((m) => m.type === 'events' && m.done), 'replay');
    });
    expect(frame.trips, frame.log).toBe(0);
    watcher.socket.close();
  });

  it('creates a session in two round trips, and stages, validates and applies with one round trip for the caller and few for the work', async () => {
    const { owner, base } = await supportDeskProject();
    // Before: 10, then 1 + 3 (the target's existence, the object's baseline, the session row), then
    // 3 (the object's baseline); now the baseline rides with who-is-asking and the object keeps it.
    const create = await counted(() => stepSession(owner, base));
    expect(create.trips, create.log).toBeLessThanOrEqual(2);
    const path = `${base}/ai/sessions/${create.result}`;
    const step = await currentStep(owner, base);

    // Before: 9 each.
    const stage = await counted(() => owner.post(`${path}/stage`, { changeSet: stepChangeSet(improved(step.markdown)) }));
    expect(stage.result.status).toBe(200);
    expect(stage.trips, stage.log).toBeLessThanOrEqual(3);
    const validate = await counted(() => owner.post(`${path}/validate`, { changeSetId: stage.result.data.changeSetId }));
    expect(validate.result.data).toMatchObject({ valid: true });
    expect(validate.trips, validate.log).toBeLessThanOrEqual(3);

    const apply = await counted(() =>
      owner.post(`${path}/apply`, {
        changeSetId: stage.result.data.changeSetId,
        contentHash: stage.result.data.contentHash,
        confirmSource: 'ui_manual_apply',
        revisionBase: { workflowRevision: step.revision },
      }),
    );
    expect(apply.result.data).toMatchObject({ applied: true });
    expect(apply.trips, apply.log).toBeLessThanOrEqual(3);
  });

  it('checks a new target in the session object against the baseline it loads: a refused one leaves no object state and no row', async () => {
    const { owner, base, projectId } = await supportDeskProject();
    const sessions = () => env.DB.prepare('SELECT COUNT(*) AS n FROM ai_sessions WHERE project_id = ?').bind(projectId).first<{ n: number }>();
    const before = (await sessions())!.n;
    const ghost = await owner.post(`${base}/ai/sessions`, { targetType: 'step', workflowId: WF, targetId: 'ghost', mode: 'optimize' });
    expect(ghost.error?.code).toBe('STEP_NOT_FOUND');
    expect((await sessions())!.n).toBe(before);

    // The object itself, asked to create a session on a step that is not there.
    const sessionId = `as_refused${Date.now().toString(36)}`;
    const meta: SessionMeta = {
      sessionId,
      projectId,
      workflowId: WF,
      targetType: 'step',
      targetId: 'ghost',
      mode: 'optimize',
      createdBy: owner.userId,
      createdAt: new Date().toISOString(),
    };
    const object = env.AI_SESSION.get(env.AI_SESSION.idFromName(sessionId));
    const refused = await runInDurableObject(object, async (instance: AiSessionDurableObject, state) => {
      const outcome = await instance.createSession(meta, 'Owner', 'never recorded', { tokenBudget: 5000 });
      const tables = state.storage.sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'").toArray();
      return { outcome, tables: tables.map((t) => t.name), keys: [...(await state.storage.list()).keys()], read: await instance.getState(projectId) };
    });
    expect(refused.outcome).toMatchObject({ ok: false, error: { code: 'STEP_NOT_FOUND' } });
    expect(refused.tables).toEqual([]);
    expect(refused.keys).toEqual([]);
    expect(refused.read).toMatchObject({ ok: false, error: { code: 'AI_SESSION_NOT_FOUND' } });
    // The same object still takes a session on a target that exists.
    const created = await runInDurableObject(object, (instance: AiSessionDurableObject) => instance.createSession({ ...meta, targetId: STEP }, 'Owner', null));
    expect(created).toMatchObject({ ok: true });
  });

  it('saves a step in the Builder in two round trips: who-is-asking with the package, then the commit', async () => {
    const { owner, base } = await supportDeskProject();
    const step = await currentStep(owner, base);
    const markdown = improved(step.markdown);
    // Before: 14 (the step read twice, the workflow three times, the path owner, the package), then
    // 3 (who-is-asking, the package, the commit); now the package rides with who-is-asking.
    const save = await counted(() => owner.put(`${base}/workflows/${WF}/steps/${STEP}`, { markdown, baseRevision: step.revision }));
    expect(save.result.status).toBe(200);
    expect(save.trips, save.log).toBeLessThanOrEqual(2);
    // The answer's validation is the package as written: the same as a fresh read reports.
    const fresh = await owner.put(`${base}/workflows/${WF}/steps/${STEP}`, { markdown, baseRevision: save.result.data.revision });
    expect(save.result.data.issues).toEqual(fresh.data.issues);
    expect(save.result.data.packageIssues).toEqual(fresh.data.packageIssues);
    expect((await currentStep(owner, base)).markdown).toBe(markdown);
  });
});

describe('the other Builder saves that read the stored package', () => {
  it('saves workflow.md and the graph in two round trips each, answering what a save without the preload answers', async () => {
    const { owner, base } = await supportDeskProject();
    const path = `${base}/workflows/${WF}`;
    const workflow = (await owner.get(path)).data.workflow as { workflowMd: string; graphJson: string; revision: number };
    const workflowMd = `${workflow.workflowMd}\nOne more line.\n`;
    // Before: 4 (who-is-asking, the workflow, the commit, the package for the answer's validation).
    const md = await counted(() => owner.put(`${path}/workflow-md`, { content: workflowMd, baseRevision: workflow.revision }));
    expect(md.result.status).toBe(200);
    expect(md.trips, md.log).toBeLessThanOrEqual(2);
    const graphJson = `${JSON.stringify(JSON.parse(workflow.graphJson), null, 1)}\n`;
    const graph = await counted(() => owner.put(`${path}/graph`, { content: graphJson, baseRevision: md.result.data.revision }));
    expect(graph.result.status).toBe(200);
    expect(graph.trips, graph.log).toBeLessThanOrEqual(2);

    // The answers' validation is the package as written: the same as a fresh read reports.
    const saved = (await owner.get(path)).data.workflow as { workflowMd: string; graphJson: string; revision: number };
    expect(saved).toMatchObject({ workflowMd, graphJson, revision: workflow.revision + 2 });
    const again = await owner.put(`${path}/workflow-md`, { content: workflowMd, baseRevision: saved.revision });
    expect(md.result.data.issues).toEqual(again.data.issues);
    expect(graph.result.data.packageIssues).toEqual(again.data.packageIssues);

    // A stale revision still gets its conflict, and a missing workflow its error.
    const stale = await owner.put(`${path}/workflow-md`, { content: `${workflowMd}Stale.\n`, baseRevision: workflow.revision });
    expect(stale.status).toBe(409);
    expect(stale.error?.code).toBe('REVISION_CONFLICT');
    const missing = await owner.put(`${base}/workflows/no-such-workflow/graph`, { content: graphJson });
    expect(missing.error?.code).toBe('WORKFLOW_NOT_FOUND');
    expect((await owner.get(path)).data.workflow.workflowMd).toBe(workflowMd);
  });
});

describe('an agent save', () => {
  it('saves one agent in two round trips, answering what a fresh save answers; a stale revision still conflicts', async () => {
    const { owner, base } = await supportDeskProject();
    const agents = (await owner.get(`${base}/agents`)).data as { revision: number; agentsJson: string };
    const first = JSON.parse(agents.agentsJson).agents[0] as { id: string; metadata?: Record<string, unknown> };
    const agent = { ...first, metadata: { ...first.metadata, title: 'Triage lead' } };
    // Before: 5 (who-is-asking, agents.json for the guard, again for the commit, the commit, the package).
    const save = await counted(() => owner.put(`${base}/agents/${first.id}`, { agent, baseRevision: agents.revision }));
    expect(save.result.status).toBe(200);
    expect(save.trips, save.log).toBeLessThanOrEqual(2);
    const after = (await owner.get(`${base}/agents`)).data as { revision: number; agentsJson: string };
    expect(after.revision).toBe(agents.revision + 1);
    expect(JSON.parse(after.agentsJson).agents[0]).toEqual(agent);
    const again = await owner.put(`${base}/agents/${first.id}`, { agent, baseRevision: after.revision });
    expect(save.result.data.issues).toEqual(again.data.issues);
    expect(save.result.data.packageIssues).toEqual(again.data.packageIssues);
    const stale = await owner.put(`${base}/agents/${first.id}`, { agent: { ...agent, metadata: { ...agent.metadata, title: 'Stale' } }, baseRevision: agents.revision });
    expect(stale.status).toBe(409);
    expect(stale.error?.code).toBe('REVISION_CONFLICT');
  });
});

describe('read replicas through the D1 Sessions API', () => {
  it('reads your own write when the bookmark is carried; without it a lagging replica may answer stale', async () => {
    const { owner, base } = await supportDeskProject();
    const stepPath = `${base}/workflows/${WF}/steps/${STEP}`;
    startLaggingReplica();
    const before = await owner.get(stepPath);
    expect(before.status).toBe(200);

    const markdown = improved(before.data.step.markdown);
    const saved = await owner.put(stepPath, { markdown, baseRevision: before.data.revision });
    expect(saved.status).toBe(200);
    const bookmark = saved.headers.get(D1_BOOKMARK_HEADER);
    expect(bookmark).toBeTruthy();

    // As the app does: the bookmark of the last answer goes with the next request.
    const own = await owner.request('GET', stepPath, undefined, { [D1_BOOKMARK_HEADER]: bookmark! });
    expect(own.data.step.markdown).toBe(markdown);
    expect(own.data.revision).toBe(before.data.revision + 1);

    // Without it the session may start on the replica, which has not seen the write yet.
    const stale = await owner.get(stepPath);
    expect(stale.data.step.markdown).toBe(before.data.step.markdown);
    expect(stale.data.revision).toBe(before.data.revision);
  });

  it('reads an apply made by the session object on the next request that carries the bookmark of the apply', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const stepPath = `${base}/workflows/${WF}/steps/${STEP}`;
    const before = await owner.get(stepPath);
    const markdown = improved(before.data.step.markdown);
    const staged = await owner.post(`${path}/stage`, { changeSet: stepChangeSet(markdown) });
    startLaggingReplica();
    // Read once on the replica, as it will stay.
    expect((await owner.get(stepPath)).data.step.markdown).toBe(before.data.step.markdown);

    const applied = await owner.post(`${path}/apply`, {
      changeSetId: staged.data.changeSetId,
      contentHash: staged.data.contentHash,
      confirmSource: 'ui_manual_apply',
    });
    expect(applied.data).toMatchObject({ applied: true });
    expect(applied.data).not.toHaveProperty('d1Bookmark');
    const bookmark = applied.headers.get(D1_BOOKMARK_HEADER);
    expect(bookmark).toBeTruthy();

    const own = await owner.request('GET', stepPath, undefined, { [D1_BOOKMARK_HEADER]: bookmark! });
    expect(own.data.step.markdown).toBe(markdown);
    expect((await owner.get(stepPath)).data.step.markdown).toBe(before.data.step.markdown);
  });

  it('asks the primary who is asking: a sign-out everywhere refuses the next request while a replica still has the login', async () => {
    const { owner, base } = await supportDeskProject();
    const other = new TestClient();
    const login = await other.post('/api/auth/login', { email: owner.email, password: 'correct horse battery' });
    expect(login.status).toBe(200);
    startLaggingReplica();
    // The replica sees the first login, as it will stay.
    expect((await owner.get(`${base}/workflows`)).status).toBe(200);
    expect((await other.post('/api/auth/logout-all')).status).toBe(200);
    const after = await owner.get(`${base}/workflows`);
    expect(after.status).toBe(401);
    expect(after.error?.code).toBe('AUTH_INVALID_TOKEN');
  });

  it('ignores a bookmark that is not one', async () => {
    const { owner, base } = await supportDeskProject();
    const res = await owner.request('GET', `${base}/workflows`, undefined, { [D1_BOOKMARK_HEADER]: "x' OR 1=1 --" });
    expect(res.status).toBe(200);
    expect(res.headers.get(D1_BOOKMARK_HEADER)).toMatch(/^[0-9a-f-]+$/);
  });
});
