/**
 * Canvas edits keep step files consistent with the graph: the source step's frontmatter
 * `transitions` follow its edges (derived again by the Worker whatever the client sent), and an
 * edit that would add validation errors is refused with every one, while problems that were
 * already there do not block an edit.
 */
import { describe, expect, it } from 'vitest';
import { parseFrontmatter } from '../../shared/bmad/frontmatter.ts';
import { projectWithOwner } from './client.ts';

const REVIEW_MD = '---\nschemaVersion: "1.1"\nnodeId: "review"\ntype: "step"\ntransitions: []\n---\n\n# Review\n\n## Goal\n\nCheck.\n\n## Instructions\n\n1. Check.\n';

interface Issue {
  code: string;
  severity: string;
  message: string;
}

async function workflow() {
  const ctx = await projectWithOwner();
  await ctx.owner.post(`${ctx.base}/workflows`, { id: 'w', name: 'W' });
  // One agent, so the package passes stage 1 and the validation report runs every rule.
  await ctx.owner.put(`${ctx.base}/agents/helper`, {
    agent: { metadata: { name: 'H', title: 'Helper', icon: 'H' }, persona: { role: 'r', identity: 'i', communication_style: 'c', principles: 'p' } },
  });
  const wf = (await ctx.owner.get(`${ctx.base}/workflows/w`)).data.workflow;
  const stepOf = async (nodeId: string): Promise<string> =>
    (await ctx.owner.get(`${ctx.base}/workflows/w`)).data.workflow.steps.find((s: { nodeId: string }) => s.nodeId === nodeId).markdown;
  const report = async (): Promise<{ errors: Issue[]; warnings: Issue[] }> => (await ctx.owner.get(`${ctx.base}/validation`)).data.report;
  return { ...ctx, graph: JSON.parse(wf.graphJson), stepOf, report };
}

function transitionsOf(markdown: string): unknown {
  const parsed = parseFrontmatter(markdown);
  if (!parsed.ok) throw new Error('the step frontmatter does not parse');
  return parsed.value.data.transitions;
}

/** The graph after "add a step after start", as the canvas builds it. */
function withReviewAfterStart(graph: { nodes: object[]; edges: object[] }, startEdges: object[]) {
  return {
    ...graph,
    nodes: [...graph.nodes, { id: 'review', type: 'step', file: 'workflows/w/steps/review.md', title: 'Review' }],
    edges: [...startEdges, { from: 'review', to: 'end', label: 'done' }],
  };
}

describe('graph edits keep step transitions consistent', () => {
  it('adds a step after start: the start step lists the new transition and validation finds no new errors', async () => {
    const { owner, base, graph, stepOf, report } = await workflow();
    expect((await report()).errors).toEqual([]);
    const added = withReviewAfterStart(graph, [
      { from: 'start', to: 'end', label: 'next', isDefault: true },
      { from: 'start', to: 'review', label: 'check' },
    ]);
    const save = await owner.post(`${base}/workflows/w/graph-edit`, {
      graph: JSON.stringify(added),
      createSteps: [{ nodeId: 'review', markdown: REVIEW_MD }],
      baseRevision: 1,
    });
    expect(save.status).toBe(200);
    expect(save.data.packageIssues.errors).toBe(0);
    const start = await stepOf('start');
    expect(transitionsOf(start)).toEqual([
      { to: 'end', label: 'next', isDefault: true },
      { to: 'review', label: 'check' },
    ]);
    // Only the transitions entry changed: the body and the other keys are as the template wrote them.
    expect(start).toContain('title: "Start"\ninputs: []\noutputs: []\ntransitions:\n');
    expect(start.slice(start.indexOf('\n---\n'))).toContain('## Completion');
    // The new step got the transitions of its own outgoing edge although the client sent none.
    expect(transitionsOf(await stepOf('review'))).toEqual([{ to: 'end', label: 'done' }]);
    const after = await report();
    expect(after.errors).toEqual([]);
    expect(after.warnings.filter((w) => w.code === 'STEP_TRANSITION_MISMATCH')).toEqual([]);
  });

  it('removing an edge removes the transition; deleting a step drops the transitions pointing to it', async () => {
    const { owner, base, graph, stepOf } = await workflow();
    const added = withReviewAfterStart(graph, [
      { from: 'start', to: 'end', label: 'next', isDefault: true },
      { from: 'start', to: 'review', label: 'check' },
    ]);
    await owner.post(`${base}/workflows/w/graph-edit`, {
      graph: JSON.stringify(added),
      createSteps: [{ nodeId: 'review', markdown: REVIEW_MD }],
      baseRevision: 1,
    });
    const removed = await owner.post(`${base}/workflows/w/graph-edit`, { graph: JSON.stringify(graph), deleteSteps: ['review'], baseRevision: 2 });
    expect(removed.status).toBe(200);
    expect(transitionsOf(await stepOf('start'))).toEqual([{ to: 'end', label: 'next' }]);
  });

  it('fixes step files whose transitions disagree with the graph, and refuses ones that change more than transitions', async () => {
    const { owner, base, graph, stepOf } = await workflow();
    const start = await stepOf('start');
    const relabelled = { ...graph, edges: [{ from: 'start', to: 'end', label: 'finish' }] };
    const lying = start.replace('label: "next"', 'label: "elsewhere"').replace('to: "end"', 'to: "nowhere"');
    const fixed = await owner.post(`${base}/workflows/w/graph-edit`, {
      graph: JSON.stringify(relabelled),
      updateSteps: [{ nodeId: 'start', markdown: lying }],
      baseRevision: 1,
    });
    expect(fixed.status).toBe(200);
    expect(transitionsOf(await stepOf('start'))).toEqual([{ to: 'end', label: 'finish' }]);

    const smuggled = (await stepOf('start')).replace('Describe what this step achieves.', 'Something else entirely.');
    const refused = await owner.post(`${base}/workflows/w/graph-edit`, {
      graph: JSON.stringify(graph),
      updateSteps: [{ nodeId: 'start', markdown: smuggled }],
      baseRevision: 2,
    });
    expect(refused.status).toBe(422);
    expect(refused.error!.code).toBe('GRAPH_EDIT_REFUSED');
    expect(refused.error!.details!.map((d) => d.message).join('\n')).toContain('may change only the transitions of “start”');
    expect(await stepOf('start')).not.toContain('Something else entirely.');
  });

  it('refuses an edit that would add validation errors, listing every one, and writes nothing', async () => {
    const { owner, base, graph, stepOf } = await workflow();
    const noDefault = withReviewAfterStart(graph, [
      { from: 'start', to: 'end', label: 'next' },
      { from: 'start', to: 'review', label: 'check' },
    ]);
    // Two ways out of start and none the default, and a lone step nothing leads to.
    noDefault.nodes.push({ id: 'lonely', type: 'step', file: 'workflows/w/steps/lonely.md', title: 'Lonely' });
    const refused = await owner.post(`${base}/workflows/w/graph-edit`, {
      graph: JSON.stringify(noDefault),
      createSteps: [
        { nodeId: 'review', markdown: REVIEW_MD },
        { nodeId: 'lonely', markdown: REVIEW_MD.replace('"review"', '"lonely"') },
      ],
      baseRevision: 1,
    });
    expect(refused.status).toBe(422);
    expect(refused.error!.code).toBe('GRAPH_EDIT_REFUSED');
    const codes = refused.error!.details!.map((d) => (d as { code?: string }).code);
    expect(codes).toEqual(expect.arrayContaining(['GRAPH_DEFAULT_EDGE_MISSING', 'GRAPH_MULTIPLE_START_NODES']));
    expect(refused.error!.details!.map((d) => d.message).join('\n')).toContain('has 2 outgoing edges but none is the default');
    const stored = (await owner.get(`${base}/workflows/w`)).data.workflow;
    expect(stored.revision).toBe(1);
    expect(stored.steps).toHaveLength(2);
    expect(transitionsOf(await stepOf('start'))).toEqual([{ to: 'end', label: 'next', isDefault: true }]);
  });

  it('does not refuse an edit over problems that were there before it', async () => {
    const { owner, base, graph, report } = await workflow();
    // A cycle without a decision, saved through the Graph JSON editor, which does not block.
    const cyclic = { ...graph, edges: [...graph.edges, { from: 'end', to: 'start', label: 'again' }] };
    expect((await owner.put(`${base}/workflows/w/graph`, { content: JSON.stringify(cyclic), baseRevision: 1 })).status).toBe(200);
    const errorsBefore = (await report()).errors.map((e) => e.code);
    expect(errorsBefore.length).toBeGreaterThan(0);
    const moved = { ...cyclic, metadata: { layout: { positions: { end: { x: 10, y: 20 } } } } };
    const save = await owner.post(`${base}/workflows/w/graph-edit`, { graph: JSON.stringify(moved), baseRevision: 2 });
    expect(save.status).toBe(200);
    expect((await report()).errors.map((e) => e.code)).toEqual(errorsBefore);
  });
});
