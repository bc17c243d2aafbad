/**
 * Never store what cannot load: every Builder save (graph, workflow.md, step, agent) runs the
 * import's validation for that file and refuses with every violation listed, writing nothing.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { projectWithOwner } from './client.ts';

async function historyCount(projectId: string) {
  return (await env.DB.prepare('SELECT count(*) AS n FROM revision_history WHERE project_id = ?').bind(projectId).first<{ n: number }>())!.n;
}

async function workflowProject() {
  const project = await projectWithOwner();
  await project.owner.post(`${project.base}/workflows`, { id: 'w', name: 'W' });
  return project;
}

const pointers = (error: { details?: { pointer?: string; message: string }[] } | null) => (error?.details ?? []).map((d) => d.pointer ?? '');

describe('Builder saves refuse what cannot load', () => {
  it('refuses graph JSON that does not parse, and one that breaks the schema, listing every violation', async () => {
    const { owner, base, projectId } = await workflowProject();
    const before = (await owner.get(`${base}/workflows/w`)).data.workflow;
    const count = await historyCount(projectId);
    const broken = await owner.put(`${base}/workflows/w/graph`, { content: '{"schemaVersion": "1.1", "nodes": [' });
    expect(broken.status).toBe(422);
    expect(broken.error?.code).toBe('FILE_NOT_LOADABLE');
    const graph = JSON.parse(before.graphJson);
    graph.nodes[0].type = 'bogus';
    graph.edges.push({ from: graph.entryNodeId, to: 'nowhere' });
    graph.extra = true;
    const invalid = await owner.put(`${base}/workflows/w/graph`, { content: JSON.stringify(graph) });
    expect(invalid.status).toBe(422);
    expect(pointers(invalid.error).sort()).toEqual(['/edges/1/label', '/edges/1/to', '/extra', '/nodes/0/type'].sort());
    const after = (await owner.get(`${base}/workflows/w`)).data.workflow;
    expect(after).toMatchObject({ revision: before.revision, graphJson: before.graphJson });
    expect(await historyCount(projectId)).toBe(count);
  });

  it('refuses a graph edit that deletes the start step or adds an edge to nowhere, saying why', async () => {
    const { owner, base } = await workflowProject();
    const graph = JSON.parse((await owner.get(`${base}/workflows/w`)).data.workflow.graphJson);
    const withoutStart = { ...graph, nodes: graph.nodes.filter((n: { id: string }) => n.id !== graph.entryNodeId) };
    const refused = await owner.put(`${base}/workflows/w/graph`, { content: JSON.stringify(withoutStart) });
    expect(refused.error?.code).toBe('FILE_NOT_LOADABLE');
    expect(refused.error?.details?.map((d: { message: string }) => d.message).join(' ')).toMatch(/entryNodeId "start" is not the id of any node/);
    expect(refused.error?.details?.map((d: { message: string }) => d.message).join(' ')).toMatch(/starts at "start", which is not a node/);
  });

  it('refuses a step whose frontmatter does not parse, and one that names another node', async () => {
    const { owner, base, projectId } = await workflowProject();
    const count = await historyCount(projectId);
    const bad = await owner.put(`${base}/workflows/w/steps/review`, { markdown: '---\nnodeId: [unclosed\n---\n## Goal\n' });
    expect(bad.status).toBe(422);
    expect(bad.error?.code).toBe('FILE_NOT_LOADABLE');
    const wrong = await owner.put(`${base}/workflows/w/steps/review`, {
      markdown: '---\nschemaVersion: "1.1"\nnodeId: other\ntype: bogus\n---\n## Goal\nx\n',
    });
    expect(pointers(wrong.error)).toEqual(['/type']);
    expect((await owner.get(`${base}/workflows/w/steps/review`)).error?.code).toBe('STEP_NOT_FOUND');
    const mismatch = await owner.put(`${base}/workflows/w/steps/review`, { markdown: '---\nschemaVersion: "1.1"\nnodeId: other\ntype: step\n---\n' });
    expect(pointers(mismatch.error)).toEqual(['/nodeId']);
    expect(await historyCount(projectId)).toBe(count);
    const good = await owner.put(`${base}/workflows/w/steps/review`, { markdown: '---\nschemaVersion: "1.1"\nnodeId: review\ntype: step\n---\n' });
    expect(good.status).toBe(200);
    // A step without its sections yet is an authoring state: saved (validation reports it), not refused.
    expect(good.data.revision).toBe(2);
  });

  it('refuses a workflow.md without frontmatter', async () => {
    const { owner, base } = await workflowProject();
    const res = await owner.put(`${base}/workflows/w/workflow-md`, { content: '# changed' });
    expect(res.error?.code).toBe('FILE_NOT_LOADABLE');
    expect((await owner.get(`${base}/workflows/w`)).data.workflow.revision).toBe(1);
  });

  it('refuses an agent with an empty name and title, listing both, and keeps agents.json as it was', async () => {
    const { owner, base, projectId } = await workflowProject();
    const before = await owner.get(`${base}/agents`);
    const count = await historyCount(projectId);
    const res = await owner.put(`${base}/agents/helper`, {
      agent: {
        metadata: { name: '', title: '', icon: 'H' },
        persona: { role: 'r', identity: 'i', communication_style: 'c', principles: 'p' },
      },
    });
    expect(res.status).toBe(422);
    expect(pointers(res.error)).toEqual([`/agents/${before.data.agents.length}/metadata/name`, `/agents/${before.data.agents.length}/metadata/title`]);
    const after = await owner.get(`${base}/agents`);
    expect(after.data).toEqual(before.data);
    expect(await historyCount(projectId)).toBe(count);
  });
});
