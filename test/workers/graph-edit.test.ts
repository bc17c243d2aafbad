/**
 * The canvas's graph edit endpoint: a new graph plus the step files of added or deleted nodes in
 * ONE revision, and the edits that would break the graph refused with every reason.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { projectWithOwner } from './client.ts';

async function historyCount(projectId: string) {
  const row = await env.DB.prepare('SELECT count(*) AS n FROM revision_history WHERE project_id = ?').bind(projectId).first<{ n: number }>();
  return row!.n;
}

const STEP_MD = '---\nschemaVersion: "1.1"\nnodeId: "review"\ntype: "step"\n---\n\n# Review\n\n## Goal\n\nCheck.\n\n## Instructions\n\n1. Check.\n';

async function workflow() {
  const ctx = await projectWithOwner();
  await ctx.owner.post(`${ctx.base}/workflows`, { id: 'w', name: 'W' });
  const wf = (await ctx.owner.get(`${ctx.base}/workflows/w`)).data.workflow;
  return { ...ctx, graph: JSON.parse(wf.graphJson) };
}

describe('graph edits from the canvas', () => {
  it('adds a step with its node, edge, file and position as one revision, and deletes it again as one', async () => {
    const { owner, base, projectId, graph } = await workflow();
    const before = await historyCount(projectId);
    const added = {
      ...graph,
      nodes: [...graph.nodes, { id: 'review', type: 'step', file: 'workflows/w/steps/review.md', title: 'Review' }],
      // A second way out of start needs one of the two to be the default.
      edges: [{ ...graph.edges[0], isDefault: true }, { from: 'start', to: 'review', label: 'check' }],
      metadata: { layout: { positions: { review: { x: 40, y: 300 } } } },
    };
    const save = await owner.post(`${base}/workflows/w/graph-edit`, {
      graph: JSON.stringify(added),
      createSteps: [{ nodeId: 'review', markdown: STEP_MD }],
      baseRevision: 1,
    });
    expect(save.status).toBe(200);
    expect(save.data.revision).toBe(2);
    const stored = (await owner.get(`${base}/workflows/w`)).data.workflow;
    expect(JSON.parse(stored.graphJson).metadata.layout.positions.review).toEqual({ x: 40, y: 300 });
    expect(stored.steps.find((s: { nodeId: string }) => s.nodeId === 'review')).toMatchObject({ path: 'workflows/w/steps/review.md', markdown: STEP_MD });
    // The graph, the new step, and the start step whose transitions follow its new edge.
    expect(await historyCount(projectId)).toBe(before + 3);
    const revisions = await env.DB.prepare('SELECT DISTINCT new_revision FROM revision_history WHERE project_id = ? AND new_revision = 2')
      .bind(projectId)
      .all();
    expect(revisions.results).toHaveLength(1);

    const removed = await owner.post(`${base}/workflows/w/graph-edit`, { graph: JSON.stringify(graph), deleteSteps: ['review'], baseRevision: 2 });
    expect(removed.data.revision).toBe(3);
    const after = (await owner.get(`${base}/workflows/w`)).data.workflow;
    expect(after.steps.map((s: { nodeId: string }) => s.nodeId).sort()).toEqual(['end', 'start']);
    expect(JSON.parse(after.graphJson).nodes).toHaveLength(2);
  });

  it('refuses deleting the start step and an edge to nowhere, listing every reason and writing nothing', async () => {
    const { owner, base, projectId, graph } = await workflow();
    const before = await historyCount(projectId);
    const broken = {
      ...graph,
      entryNodeId: 'end',
      nodes: graph.nodes.filter((n: { id: string }) => n.id !== 'start'),
      edges: [{ from: 'end', to: 'nowhere', label: 'lost' }],
    };
    const refused = await owner.post(`${base}/workflows/w/graph-edit`, { graph: JSON.stringify(broken), deleteSteps: ['start'], baseRevision: 1 });
    expect(refused.status).toBe(422);
    expect(refused.error!.code).toBe('GRAPH_EDIT_REFUSED');
    const messages = refused.error!.details!.map((d: { message: string }) => d.message).join('\n');
    expect(messages).toContain('“start” is the start step and cannot be deleted');
    expect(messages).toContain('points to “nowhere”, which is not a step of the graph');
    expect(await historyCount(projectId)).toBe(before);
    const stored = (await owner.get(`${base}/workflows/w`)).data.workflow;
    expect(stored.revision).toBe(1);
    expect(stored.steps).toHaveLength(2);
  });

  it('refuses a graph that is not JSON or breaks the schema, a step file without a node, and a stale revision', async () => {
    const { owner, base, graph } = await workflow();
    const notJson = await owner.post(`${base}/workflows/w/graph-edit`, { graph: '{nope', baseRevision: 1 });
    expect(notJson.error).toMatchObject({ code: 'GRAPH_EDIT_REFUSED', message: 'The new graph is not valid JSON.' });
    const extraField = { ...graph, nodes: [{ ...graph.nodes[0], x: 10 }, graph.nodes[1]] };
    const schema = await owner.post(`${base}/workflows/w/graph-edit`, { graph: JSON.stringify(extraField), baseRevision: 1 });
    expect(schema.error!.code).toBe('GRAPH_EDIT_REFUSED');
    expect(schema.error!.details![0]!.pointer).toBe('/nodes/0');
    const orphan = await owner.post(`${base}/workflows/w/graph-edit`, {
      graph: JSON.stringify(graph),
      createSteps: [{ nodeId: 'ghost', markdown: '# Ghost' }],
      baseRevision: 1,
    });
    expect(orphan.error!.details![0]!.message).toContain('needs a step of that id');
    const escaping = { ...graph, nodes: [...graph.nodes, { id: 'x', type: 'step', file: '../x.md' }] };
    const escape = await owner.post(`${base}/workflows/w/graph-edit`, {
      graph: JSON.stringify(escaping),
      createSteps: [{ nodeId: 'x', markdown: '# X' }],
      baseRevision: 1,
    });
    expect(escape.error!.details![0]!.message).toContain('is not allowed');
    const stale = await owner.post(`${base}/workflows/w/graph-edit`, { graph: JSON.stringify(graph), baseRevision: 0 });
    expect(stale.error!.code).toBe('REVISION_CONFLICT');
  });

  it('refuses a new step whose file belongs to another workflow of the project', async () => {
    const { owner, base, graph } = await workflow();
    await owner.post(`${base}/workflows`, { id: 'other', name: 'Other' });
    const taking = { ...graph, nodes: [...graph.nodes, { id: 'copy', type: 'step', file: 'workflows/other/steps/start.md' }] };
    const refused = await owner.post(`${base}/workflows/w/graph-edit`, {
      graph: JSON.stringify(taking),
      createSteps: [{ nodeId: 'copy', markdown: '# Copy' }],
      baseRevision: 1,
    });
    expect(refused.status).toBe(422);
    expect(refused.error!.details![0]!.message).toContain('already belongs to workflow “other”');
  });
});
