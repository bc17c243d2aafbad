import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { projectWithOwner } from './client.ts';

async function historyCount(projectId: string) {
  const row = await env.DB.prepare('SELECT count(*) AS n FROM revision_history WHERE project_id = ?').bind(projectId).first<{ n: number }>();
  return row!.n;
}

/** A step file that loads (the Builder refuses one that does not: save-validation.test.ts). */
const stepMd = (nodeId: string, title: string) => `---\nschemaVersion: "1.1"\nnodeId: ${nodeId}\ntype: step\n---\n# ${title}\n`;
const CHANGED_MD = '---\nschemaVersion: "1.1"\nworkflowType: w\ncurrentNodeId: ""\nstepsCompleted: []\n---\n# changed\n';
/** The starting graph of a new workflow with another title on its entry node. */
const retitled = (graphJson: string, title: string) => {
  const graph = JSON.parse(graphJson);
  graph.nodes[0].title = title;
  return JSON.stringify(graph);
};

describe('workflows and steps', () => {
  it('creates a workflow with a valid starting graph and steps, at revision 1', async () => {
    const { owner, base } = await projectWithOwner();
    const created = await owner.post(`${base}/workflows`, { id: 'expense-compliance', name: 'Expense compliance' });
    expect(created.status).toBe(201);
    const wf = created.data.workflow;
    expect(wf).toMatchObject({ id: 'expense-compliance', revision: 1, isDefault: true, stepCount: 2 });
    const graph = JSON.parse(wf.graphJson);
    expect(graph.entryNodeId).toBe('start');
    expect(wf.steps.map((s: { path: string }) => s.path)).toEqual([
      'workflows/expense-compliance/steps/end.md',
      'workflows/expense-compliance/steps/start.md',
    ]);
    expect((await owner.post(`${base}/workflows`, { id: 'expense-compliance', name: 'Again' })).error?.code).toBe('WORKFLOW_EXISTS');
    expect((await owner.post(`${base}/workflows`, { id: '../evil', name: 'Bad id' })).status).toBe(422);
    const second = await owner.post(`${base}/workflows`, { id: 'variance', name: 'Variance' });
    expect(second.data.workflow.isDefault).toBe(false);
    const list = await owner.get(`${base}/workflows`);
    expect(list.data.workflows.map((w: { id: string }) => w.id)).toEqual(['expense-compliance', 'variance']);
  });

  it('bumps the workflow revision on every write and keeps the content before in history', async () => {
    const { owner, base, projectId } = await projectWithOwner();
    await owner.post(`${base}/workflows`, { id: 'w', name: 'W' });
    const original = (await owner.get(`${base}/workflows/w`)).data.workflow.workflowMd as string;
    const md = await owner.put(`${base}/workflows/w/workflow-md`, { content: CHANGED_MD, baseRevision: 1 });
    expect(md.data.revision).toBe(2);
    const step = await owner.put(`${base}/workflows/w/steps/review`, { markdown: stepMd('review', 'Review'), baseRevision: 2 });
    expect(step.data.revision).toBe(3);
    const read = await owner.get(`${base}/workflows/w/steps/review`);
    expect(read.data).toMatchObject({ revision: 3, step: { nodeId: 'review', path: 'workflows/w/steps/review.md', markdown: stepMd('review', 'Review') } });
    const history = await owner.get(`${base}/history?objectKey=workflow:w`);
    expect(history.data.entries.map((e: { action: string }) => e.action)).toEqual(['update', 'create']);
    const detail = await owner.get(`${base}/history/${history.data.entries[0].id}`);
    expect(detail.data.entry).toMatchObject({ oldRevision: 1, newRevision: 2, contentBefore: original, contentAfter: CHANGED_MD });
    expect(detail.data.entry.actor.id).toBe(owner.userId);
    expect(await historyCount(projectId)).toBe(6); // 4 create rows + md update + step create
  });

  it('answers a stale base revision with 409 and the current revision, writing nothing', async () => {
    const { owner, base, projectId } = await projectWithOwner();
    await owner.post(`${base}/workflows`, { id: 'w', name: 'W' });
    const seed = (await owner.get(`${base}/workflows/w`)).data.workflow.graphJson as string;
    await owner.put(`${base}/workflows/w/graph`, { content: retitled(seed, 'one'), baseRevision: 1 });
    const before = await historyCount(projectId);
    const stale = await owner.put(`${base}/workflows/w/graph`, { content: retitled(seed, 'two'), baseRevision: 1 });
    expect(stale.status).toBe(409);
    expect(stale.error).toMatchObject({ code: 'REVISION_CONFLICT', currentRevision: 2 });
    expect((await owner.get(`${base}/workflows/w`)).data.workflow.graphJson).toBe(retitled(seed, 'one'));
    expect(await historyCount(projectId)).toBe(before);
  });

  it('renames, moves the default flag, deletes a workflow into history and restores it by revert', async () => {
    const { owner, base } = await projectWithOwner();
    await owner.post(`${base}/workflows`, { id: 'a', name: 'A' });
    await owner.post(`${base}/workflows`, { id: 'b', name: 'B' });
    await owner.put(`${base}/workflows/a/steps/extra`, { markdown: stepMd('extra', 'Extra') });
    expect((await owner.patch(`${base}/workflows/b`, { name: 'Bee', isDefault: true })).data.workflow).toMatchObject({ name: 'Bee', isDefault: true });
    expect((await owner.get(`${base}/workflows/a`)).data.workflow.isDefault).toBe(false);
    expect((await owner.delete(`${base}/workflows/a`)).status).toBe(200);
    expect((await owner.get(`${base}/workflows/a`)).error?.code).toBe('WORKFLOW_NOT_FOUND');
    const deletion = (await owner.get(`${base}/history?objectKey=workflow:a`)).data.entries[0];
    expect(deletion.action).toBe('delete');
    const reverted = await owner.post(`${base}/history/${deletion.id}/revert`);
    expect(reverted.status).toBe(200);
    const back = (await owner.get(`${base}/workflows/a`)).data.workflow;
    expect(back.name).toBe('A');
    expect(back.steps.map((s: { nodeId: string }) => s.nodeId).sort()).toEqual(['end', 'extra', 'start']);
  });

  it('deletes a step and brings it back with a revert as a new revision', async () => {
    const { owner, base } = await projectWithOwner();
    await owner.post(`${base}/workflows`, { id: 'w', name: 'W' });
    const markdown = (await owner.get(`${base}/workflows/w/steps/start`)).data.step.markdown;
    expect((await owner.delete(`${base}/workflows/w/steps/start?baseRevision=1`)).data.revision).toBe(2);
    expect((await owner.get(`${base}/workflows/w/steps/start`)).error?.code).toBe('STEP_NOT_FOUND');
    const entry = (await owner.get(`${base}/history?objectKey=step:w/start`)).data.entries[0];
    const reverted = await owner.post(`${base}/history/${entry.id}/revert`);
    expect(reverted.data.revision).toBe(3);
    expect((await owner.get(`${base}/workflows/w/steps/start`)).data.step.markdown).toBe(markdown);
    const latest = (await owner.get(`${base}/history?objectKey=step:w/start`)).data.entries[0];
    expect(latest).toMatchObject({ action: 'revert', oldRevision: 2, newRevision: 3 });
  });

  it('gives a new step whose id has ":" a file name Windows can unpack (the id stays), numbered when taken; a saved step keeps its file', async () => {
    const { owner, base } = await projectWithOwner();
    await owner.post(`${base}/workflows`, { id: 'w', name: 'W' });
    const colon = `${base}/workflows/w/steps/${encodeURIComponent('review:final')}`;
    const saved = await owner.put(colon, { markdown: stepMd('"review:final"', 'Review') });
    expect(saved.status).toBe(200);
    expect((await owner.get(colon)).data.step).toMatchObject({ nodeId: 'review:final', path: 'workflows/w/steps/review_final.md' });
    // The portable name is taken now, so a step whose own id it is gets the next one; a device name gets one too.
    for (const [nodeId, path] of [['review_final', 'workflows/w/steps/review_final-2.md'], ['nul', 'workflows/w/steps/nul_.md']]) {
      const url = `${base}/workflows/w/steps/${nodeId}`;
      expect((await owner.put(url, { markdown: stepMd(nodeId!, nodeId!) })).status).toBe(200);
      expect((await owner.get(url)).data.step.path).toBe(path);
    }
    expect((await owner.put(colon, { markdown: stepMd('"review:final"', 'Review again') })).status).toBe(200);
    expect((await owner.get(colon)).data.step).toMatchObject({ path: 'workflows/w/steps/review_final.md', markdown: stepMd('"review:final"', 'Review again') });

    // The graph's node names the file: validation finds no name Windows cannot unpack.
    const graph = JSON.parse((await owner.get(`${base}/workflows/w`)).data.workflow.graphJson);
    graph.nodes.push({ id: 'review:final', type: 'step', file: 'workflows/w/steps/review_final.md', title: 'Review' });
    graph.edges.push({ from: 'start', to: 'review:final', label: 'review' });
    expect((await owner.put(`${base}/workflows/w/graph`, { content: JSON.stringify(graph) })).status).toBe(200);
    const report = (await owner.get(`${base}/validation`)).data.report;
    expect(report.warnings.filter((w: { code: string }) => w.code.endsWith('_NOT_PORTABLE'))).toEqual([]);
  });

  it('refuses step paths that escape the package', async () => {
    const { owner, base } = await projectWithOwner();
    await owner.post(`${base}/workflows`, { id: 'w', name: 'W' });
    const res = await owner.put(`${base}/workflows/w/steps/x`, { markdown: stepMd('x', 'X'), path: '../../etc/passwd.md' });
    expect(res.status).toBe(422);
    expect((await owner.get(`${base}/workflows/w/steps/x`)).status).toBe(404);
  });
});

describe('agents', () => {
  it('upserts and deletes one agent under the agents revision, with history and revert', async () => {
    const { owner, base } = await projectWithOwner();
    const agent = { metadata: { name: 'Mary', title: 'Analyst', icon: '📊' }, persona: { role: 'r', identity: 'i', communication_style: 'c', principles: 'p' } };
    expect((await owner.put(`${base}/agents/analyst`, { agent, baseRevision: 1 })).data.revision).toBe(2);
    const view = await owner.get(`${base}/agents`);
    expect(view.data.agents).toEqual([{ id: 'analyst', name: 'Mary', title: 'Analyst' }]);
    expect(JSON.parse(view.data.agentsJson).agents[0].persona.communication_style).toBe('c');
    const changed = await owner.put(`${base}/agents/analyst`, { agent: { ...agent, metadata: { ...agent.metadata, name: 'Maria' } } });
    expect(changed.data.revision).toBe(3);
    expect((await owner.put(`${base}/agents/analyst`, { agent: { id: 'other' } })).status).toBe(422);
    expect((await owner.delete(`${base}/agents/analyst?baseRevision=2`)).error?.code).toBe('REVISION_CONFLICT');
    expect((await owner.delete(`${base}/agents/analyst?baseRevision=3`)).data.revision).toBe(4);
    expect((await owner.delete(`${base}/agents/analyst`)).error?.code).toBe('AGENT_NOT_FOUND');
    const entry = (await owner.get(`${base}/history?objectKey=agent:analyst`)).data.entries[0];
    expect(entry.action).toBe('delete');
    await owner.post(`${base}/history/${entry.id}/revert`);
    expect((await owner.get(`${base}/agents`)).data.agents[0].name).toBe('Maria');
  });
});

describe('assets', () => {
  it('creates, reads, updates, renames and deletes text assets, bumping the assets revision', async () => {
    const { owner, base } = await projectWithOwner();
    const put = await owner.put(`${base}/assets/file`, { path: 'assets/policies/expense.md', content: '# Policy', baseRevision: 1 });
    expect(put.data.revision).toBe(2);
    const read = await owner.get(`${base}/assets/file?path=assets/policies/expense.md`);
    expect(read.data).toMatchObject({ revision: 2, asset: { path: 'assets/policies/expense.md', content: '# Policy', bytes: 8 } });
    expect(read.data.asset.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect((await owner.post(`${base}/assets/rename`, { from: 'assets/policies/expense.md', to: 'assets/policy.md' })).data.revision).toBe(3);
    expect((await owner.get(`${base}/assets`)).data).toMatchObject({ revision: 3, assets: [{ path: 'assets/policy.md' }] });
    expect((await owner.delete(`${base}/assets/file?path=assets/policy.md&baseRevision=3`)).data.revision).toBe(4);
    expect((await owner.get(`${base}/assets`)).data.assets).toEqual([]);
    const history = (await owner.get(`${base}/history?objectKey=asset:assets/policy.md`)).data.entries;
    expect(history.map((e: { action: string }) => e.action)).toEqual(['delete', 'rename']);
  });

  it('refuses unsafe paths, wrong extensions and oversize content, writing nothing', async () => {
    const { owner, base, projectId } = await projectWithOwner();
    for (const path of ['../secret.md', 'assets/../x.md', '/etc/passwd', 'assets\\x.md', 'assets/a.exe', 'notes.md', 'assets//x.md', 'assets/x\u0000.md']) {
      const res = await owner.put(`${base}/assets/file`, { path, content: 'x' });
      expect(res.status, path).toBe(422);
      expect(res.error?.code, path).toBe('ASSET_INVALID_PATH');
    }
    const big = await owner.put(`${base}/assets/file`, { path: 'assets/big.md', content: 'x'.repeat(300 * 1024) });
    expect(big.status).toBe(413);
    expect(await historyCount(projectId)).toBe(0);
    expect((await owner.get(`${base}/assets`)).data).toEqual({ revision: 1, assets: [] });
  });

  it('refuses a path that would collide with another asset once the package is unpacked, writing nothing', async () => {
    const { owner, base, projectId } = await projectWithOwner();
    expect((await owner.put(`${base}/assets/file`, { path: 'assets/Plan.md', content: 'one' })).status).toBe(200);
    expect((await owner.put(`${base}/assets/file`, { path: 'assets/guide.md/intro.md', content: 'two' })).status).toBe(200);
    const before = await historyCount(projectId);
    const cases = [
      ['assets/plan.md', 'only in letter case'],
      ['assets/PLAN.md/x.md', 'cannot share a name'],
      ['assets/Guide.md', 'cannot share a name'],
    ] as const;
    for (const [path, words] of cases) {
      const res = await owner.put(`${base}/assets/file`, { path, content: 'x' });
      expect(res.status, path).toBe(422);
      expect(res.error, path).toMatchObject({ code: 'ASSET_INVALID_PATH', message: expect.stringContaining(words) });
    }
    const renamed = await owner.post(`${base}/assets/rename`, { from: 'assets/guide.md/intro.md', to: 'assets/plan.md' });
    expect(renamed.error?.code).toBe('ASSET_INVALID_PATH');
    // A rename that changes only the case of one file is fine: nothing else has its name.
    expect((await owner.post(`${base}/assets/rename`, { from: 'assets/Plan.md', to: 'assets/plan.md' })).status).toBe(200);
    expect(await historyCount(projectId)).toBe(before + 2);
    expect((await owner.get(`${base}/assets`)).data.assets.map((a: { path: string }) => a.path)).toEqual(['assets/guide.md/intro.md', 'assets/plan.md']);
  });
});

describe('history', () => {
  it('pages newest first and rejects a foreign or unknown entry', async () => {
    const { owner, base } = await projectWithOwner();
    for (let i = 0; i < 5; i++) await owner.put(`${base}/assets/file`, { path: `assets/n${i}.md`, content: `${i}` });
    const first = await owner.get(`${base}/history?limit=2`);
    expect(first.data.entries.map((e: { objectKey: string }) => e.objectKey)).toEqual(['asset:assets/n4.md', 'asset:assets/n3.md']);
    const second = await owner.get(`${base}/history?limit=2&before=${encodeURIComponent(first.data.nextCursor)}`);
    expect(second.data.entries.map((e: { objectKey: string }) => e.objectKey)).toEqual(['asset:assets/n2.md', 'asset:assets/n1.md']);
    expect((await owner.get(`${base}/history/hist_nope`)).error?.code).toBe('HISTORY_NOT_FOUND');
    const other = await projectWithOwner();
    const foreignId = first.data.entries[0].id;
    expect((await other.owner.get(`${other.base}/history/${foreignId}`)).status).toBe(404);
    expect((await owner.get(`${base}/history?limit=0`)).status).toBe(422);
  });

  it('refuses a query parameter given twice instead of picking one of the values', async () => {
    const { owner, base } = await projectWithOwner();
    const twice = await owner.get(`${base}/history?limit=2&limit=3`);
    expect(twice.status).toBe(422);
    expect(twice.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: 'limit' }] });
  });

  it('rolls back the whole batch when a statement inside it fails', async () => {
    const { owner, base, projectId } = await projectWithOwner();
    await owner.post(`${base}/workflows`, { id: 'w', name: 'W' });
    // A trigger that makes the step insert fail after the history row and before the bump.
    await env.DB.prepare(
      `CREATE TRIGGER fail_step_insert BEFORE INSERT ON workflow_steps WHEN NEW.node_id = 'boom'
       BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
    ).run();
    const before = await historyCount(projectId);
    const res = await owner.put(`${base}/workflows/w/steps/boom`, { markdown: stepMd('boom', 'Boom') });
    expect(res.status).toBe(500);
    expect(res.error?.code).toBe('INTERNAL_ERROR');
    expect(await historyCount(projectId)).toBe(before);
    expect((await owner.get(`${base}/workflows/w`)).data.workflow.revision).toBe(1);
    await env.DB.prepare('DROP TRIGGER fail_step_insert').run();
  });
});

describe('the revision guard inside the batch', () => {
  it('aborts the batch when another write got in between the read and the commit', async () => {
    const { createDb } = await import('../../worker/db/client.ts');
    const { commitChanges } = await import('../../worker/store/commit.ts');
    const { sql } = await import('drizzle-orm');
    const { owner, base, projectId } = await projectWithOwner();
    await owner.put(`${base}/assets/file`, { path: 'assets/a.md', content: 'one' }); // assets revision 1 → 2
    const db = createDb(env.DB);
    const before = await historyCount(projectId);
    // Prepared against revision 1, as if read before the write above landed.
    const attempt = commitChanges(db, { projectId, actorId: owner.userId }, [
      {
        scope: { kind: 'assets' },
        expectedRevision: 1,
        writes: [{ objectKey: 'asset:assets/a.md', action: 'update', contentBefore: 'one', contentAfter: 'lost?' }],
        statements: [sql`UPDATE assets SET content = 'lost?' WHERE project_id = ${projectId} AND path = 'assets/a.md'`],
      },
    ]);
    await expect(attempt).rejects.toMatchObject({ code: 'REVISION_CONFLICT', extra: { currentRevision: 2 } });
    expect(await historyCount(projectId)).toBe(before);
    expect((await owner.get(`${base}/assets/file?path=assets/a.md`)).data).toMatchObject({ revision: 2, asset: { content: 'one' } });
  });
});
