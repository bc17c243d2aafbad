import { describe, expect, it } from 'vitest';
import { useLocale } from './i18n/i18n.svelte.ts';
import { pageWords as zhPageWords } from './i18n/zh/page-words.ts';
import type { StepView } from '../../shared/api/index.ts';
import { readNodePositions } from '../../shared/bmad/graph-positions.ts';
import { addEdge, addStep, deleteEdge, deleteStep, invertChange, moveNodes, placeAfter, updateEdge, type EditResult } from './graph-edit.ts';
import { spreadLabels } from './edge-labels.ts';

const GRAPH = `${JSON.stringify(
  {
    schemaVersion: '1.1',
    entryNodeId: 'start',
    nodes: [
      { id: 'start', type: 'step', file: 'workflows/w/steps/start.md', title: 'Start' },
      { id: 'end', type: 'end', file: 'workflows/w/steps/end.md', title: 'Finish' },
    ],
    edges: [{ from: 'start', to: 'end', label: 'next' }],
    metadata: { author: 'kept', layout: { positions: { start: { x: 0, y: 0 } } } },
  },
  null,
  2,
)}\n`;
const STEPS: StepView[] = [
  { nodeId: 'end', path: 'workflows/w/steps/end.md', markdown: '# End' },
  { nodeId: 'start', path: 'workflows/w/steps/start.md', markdown: '# Start' },
];

/** GRAPH after a step was added after the end step: a way out of a step with none. */
function withStep3(): { text: string; steps: StepView[] } {
  const added = changed(addStep(GRAPH, STEPS, { from: 'end' }));
  return { text: added.after, steps: [...STEPS, ...added.createSteps] };
}

function changed(result: EditResult) {
  if (!result.ok) throw new Error(`expected a change, got: ${result.message}`);
  return { ...result.change, graph: JSON.parse(result.change.after) };
}

describe('graph edits', () => {
  it('adds a step after a node on its way out: node, edges, position and a step file beside the others', () => {
    const change = changed(addStep(GRAPH, STEPS, { from: 'start', position: { x: 10.4, y: 200 } }));
    expect(change.graph.nodes[2]).toEqual({ id: 'step-3', type: 'step', file: 'workflows/w/steps/step-3.md', title: 'New step 3' });
    // Start → step-3 → end: the old edge is re-pointed and the new step leads on, so no path ends at it.
    expect(change.graph.edges).toEqual([
      { from: 'start', to: 'step-3', label: 'next' },
      { from: 'step-3', to: 'end', label: 'next' },
    ]);
    expect(readNodePositions(change.graph).get('step-3')).toEqual({ x: 10, y: 200 });
    expect(change.graph.metadata.author).toBe('kept');
    expect(change.createSteps).toHaveLength(1);
    expect(change.createSteps[0]).toMatchObject({ nodeId: 'step-3', path: 'workflows/w/steps/step-3.md' });
    expect(change.createSteps[0]!.markdown).toContain('## Instructions');
    expect(change.deleteSteps).toEqual([]);
  });

  it('picks a node id no node and no step file uses', () => {
    const steps = [...STEPS, { nodeId: 'step-3', path: 'x/step-3.md', markdown: '' }];
    expect(changed(addStep(GRAPH, steps)).graph.nodes[2].id).toBe('step-4');
  });

  it('adds a step with nothing selected after the start step, so no step is left that nothing leads to', () => {
    expect(changed(addStep(GRAPH, STEPS)).graph.edges).toEqual([
      { from: 'start', to: 'step-3', label: 'next' },
      { from: 'step-3', to: 'end', label: 'next' },
    ]);
  });

  it('adds a step after a step with no way out as a plain edge to it', () => {
    expect(changed(addStep(GRAPH, STEPS, { from: 'end' })).graph.edges).toEqual([
      { from: 'start', to: 'end', label: 'next' },
      { from: 'end', to: 'step-3', label: 'next' },
    ]);
  });

  it('adds a step on the default path of a step with several ways out, keeping that edge’s label, condition and flag', () => {
    const { text, steps } = withStep3();
    const branched = changed(addEdge(text, steps, 'start', 'step-3', 'other'));
    const labelled = changed(updateEdge(branched.after, steps, 0, { label: 'done', conditionText: 'all good' }));
    const inserted = changed(addStep(labelled.after, steps, { from: 'start' }));
    expect(inserted.graph.edges).toEqual([
      { from: 'start', to: 'step-4', label: 'done', isDefault: true, conditionText: 'all good' },
      { from: 'end', to: 'step-3', label: 'next' },
      { from: 'start', to: 'step-3', label: 'other' },
      { from: 'step-4', to: 'end', label: 'next', isDefault: true },
    ]);
    // The new step's file lists its way on.
    expect(inserted.createSteps[0]!.markdown).toContain('  - to: "end"\n    label: "next"\n    isDefault: true\n');
  });

  it('places a step added after a node a row below it, moving the nodes below down out of its way', () => {
    const drawn = new Map([
      ['start', { x: 0, y: 0 }],
      ['side', { x: 300, y: 0 }],
      ['end', { x: 0, y: 100 }],
      ['later', { x: 200, y: 260 }],
    ]);
    const place = placeAfter(drawn, 'start', 140)!;
    expect(place.position).toEqual({ x: 0, y: 140 });
    // The nodes below start move together, the first of them a whole row below the new step.
    expect(Object.fromEntries(place.positions)).toEqual({ start: { x: 0, y: 0 }, side: { x: 300, y: 0 }, end: { x: 0, y: 280 }, later: { x: 200, y: 440 } });
    expect(placeAfter(new Map([['start', { x: 0, y: 0 }], ['end', { x: 0, y: 500 }]]), 'start', 140)!.positions.get('end')).toEqual({ x: 0, y: 500 });
    expect(placeAfter(drawn, 'ghost', 140)).toBeUndefined();
  });

  it('makes the old way out the default when a step gains a second one', () => {
    const { text, steps } = withStep3();
    const added = changed(addEdge(text, steps, 'start', 'step-3'));
    expect(added.graph.edges[0]).toEqual({ from: 'start', to: 'end', label: 'next', isDefault: true });
    const connected = changed(addEdge(GRAPH, STEPS, 'start', 'start', 'again'));
    expect(connected.graph.edges.filter((e: { isDefault?: boolean }) => e.isDefault)).toEqual([{ from: 'start', to: 'end', label: 'next', isDefault: true }]);
    // Deleting the default of three ways out hands the flag to the first that is left.
    const three = changed(addEdge(added.after, steps, 'start', 'start', 'again'));
    const left = changed(deleteEdge(three.after, steps, 0));
    expect(left.graph.edges.filter((e: { from: string; isDefault?: boolean }) => e.from === 'start' && e.isDefault)).toHaveLength(1);
  });

  it('deletes a step with its edges, position and file; undo brings the same file back', () => {
    const added = changed(addStep(GRAPH, STEPS, { from: 'end', position: { x: 1, y: 2 } }));
    const steps = [...STEPS, ...added.createSteps];
    const removed = changed(deleteStep(added.after, steps, 'step-3'));
    expect(removed.graph.nodes.map((n: { id: string }) => n.id)).toEqual(['start', 'end']);
    expect(removed.graph.edges).toEqual([{ from: 'start', to: 'end', label: 'next' }]);
    // The default flag a second way out needed stays on the way that is left.
    const { text, steps: withFile } = withStep3();
    const branched = changed(addEdge(text, withFile, 'start', 'step-3'));
    expect(changed(deleteStep(branched.after, withFile, 'step-3')).graph.edges).toEqual([{ from: 'start', to: 'end', label: 'next', isDefault: true }]);
    expect(readNodePositions(removed.graph).has('step-3')).toBe(false);
    expect(removed.deleteSteps).toEqual(added.createSteps);
    const undo = invertChange(removed);
    expect(undo.after).toBe(added.after);
    expect(undo.createSteps).toEqual(added.createSteps);
    expect(undo.deleteSteps).toEqual([]);
  });

  it('refuses deleting the start step, saying why', () => {
    const result = deleteStep(GRAPH, STEPS, 'start');
    expect(result).toEqual({ ok: false, message: expect.stringContaining('“start” is the start step and cannot be deleted') });
  });

  it("words a refusal by the shared rules in the reader's language", async () => {
    await useLocale('zh');
    try {
      const start = deleteStep(GRAPH, STEPS, 'start');
      expect(start).toEqual({ ok: false, message: zhPageWords.graph.problem.startDeleted.replace('{{id}}', 'start') });
      const nowhere = addEdge(GRAPH, STEPS, 'start', 'ghost');
      expect(nowhere.ok).toBe(false);
      expect(nowhere.ok ? '' : nowhere.message).toContain('“ghost”不是图中的步骤');
    } finally {
      await useLocale('en');
    }
  });

  it('refuses an edge to nowhere and a duplicate edge', () => {
    expect(addEdge(GRAPH, STEPS, 'start', 'ghost')).toEqual({ ok: false, message: expect.stringContaining('points to “ghost”') });
    expect(addEdge(GRAPH, STEPS, 'start', 'end')).toEqual({ ok: false, message: 'There is already an edge from “start” to “end”.' });
  });

  it('adds, edits and deletes edges; one default edge per source', () => {
    const added = changed(addEdge(GRAPH, STEPS, 'end', 'start', 'again'));
    expect(added.graph.edges[1]).toEqual({ from: 'end', to: 'start', label: 'again' });
    const { text, steps } = withStep3();
    const twoFromStart = changed(addEdge(text, steps, 'start', 'step-3'));
    const first = changed(updateEdge(twoFromStart.after, steps, 0, { isDefault: true, conditionText: 'ok' }));
    const second = changed(updateEdge(first.after, steps, 2, { isDefault: true, label: ' other ' }));
    expect(second.graph.edges[0]).toEqual({ from: 'start', to: 'end', label: 'next', conditionText: 'ok' });
    expect(second.graph.edges[2]).toEqual({ from: 'start', to: 'step-3', label: 'other', isDefault: true });
    expect(updateEdge(GRAPH, STEPS, 0, { label: '  ' })).toEqual({ ok: false, message: 'An edge needs a label.' });
    const cleared = changed(updateEdge(first.after, steps, 0, { conditionText: '' }));
    expect(cleared.graph.edges[0].conditionText).toBeUndefined();
    expect(changed(deleteEdge(GRAPH, STEPS, 0)).graph.edges).toEqual([]);
  });

  it('keeps moved positions in the layout metadata, merged with the stored ones; no move is no change', () => {
    const moved = changed(moveNodes(GRAPH, STEPS, new Map([['end', { x: 5, y: 300 }]])));
    expect(Object.fromEntries(readNodePositions(moved.graph))).toEqual({ start: { x: 0, y: 0 }, end: { x: 5, y: 300 } });
    expect(moveNodes(GRAPH, STEPS, new Map([['start', { x: 0, y: 0 }]]))).toEqual({ ok: false, message: 'Nothing moved.' });
  });

  it('refuses every edit of a graph that is not JSON', () => {
    expect(addStep('{', STEPS).ok).toBe(false);
  });
});

describe('spreadLabels', () => {
  it('moves a label off one it would cover and leaves clear labels where they are', () => {
    const spread = spreadLabels([
      { id: 'a', x: 0, y: 100, width: 60, height: 18 },
      { id: 'b', x: 10, y: 105, width: 60, height: 18 },
      { id: 'c', x: 400, y: 100, width: 60, height: 18 },
    ]);
    expect(spread.get('a')).toEqual({ x: 0, y: 100 });
    expect(spread.get('c')).toEqual({ x: 400, y: 100 });
    const b = spread.get('b')!;
    expect(Math.abs(b.y - 100)).toBeGreaterThanOrEqual(22);
  });
});

describe('autoLayout', () => {
  it('lays a chain out top to bottom without overlapping nodes', async () => {
    const { autoLayout } = await import('./auto-layout.ts');
    const positions = autoLayout({
      nodes: [{ id: 'a' }, { id: 'b' }, { id: 'c' }, { id: 'd' }],
      edges: [
        { from: 'a', to: 'b', label: 'next' },
        { from: 'a', to: 'c', label: 'other way' },
        { from: 'b', to: 'd', label: 'next' },
        { from: 'c', to: 'd', label: 'next' },
      ],
      nodeWidth: 180,
      nodeHeight: 70,
    });
    expect(positions.get('b')!.y).toBeGreaterThan(positions.get('a')!.y + 70);
    expect(positions.get('d')!.y).toBeGreaterThan(positions.get('b')!.y + 70);
    expect(positions.get('b')!.y).toBe(positions.get('c')!.y);
    expect(Math.abs(positions.get('b')!.x - positions.get('c')!.x)).toBeGreaterThanOrEqual(180);
  });
});

describe('graph edits keep step transitions', () => {
  const step = (id: string, transitions: string) =>
    `---\nschemaVersion: "1.1"\nnodeId: "${id}"\ntype: "step"\n${transitions}---\n\n# ${id}\n\n## Goal\n\nG.\n`;
  const START_MD = step('start', 'transitions:\n  - to: "end"\n    label: "next"\n    isDefault: true\n');
  const FILES: StepView[] = [
    { nodeId: 'end', path: 'workflows/w/steps/end.md', markdown: step('end', 'transitions: []\n') },
    { nodeId: 'start', path: 'workflows/w/steps/start.md', markdown: START_MD },
  ];
  const transitions = (markdown: string) => /transitions:\n((?: {2}.*\n|- .*\n)*)/.exec(markdown)?.[1] ?? '';

  it('adding a step after start rewrites the start step’s transitions, and the undo restores the file as it was', () => {
    const added = changed(addStep(GRAPH, FILES, { from: 'start' }));
    expect(added.updateSteps).toHaveLength(1);
    expect(added.updateSteps[0]).toMatchObject({ nodeId: 'start', path: 'workflows/w/steps/start.md', before: START_MD });
    // Its way out now leads to the new step, which leads on to "end".
    expect(transitions(added.updateSteps[0]!.after)).toBe('  - to: "step-3"\n    label: "next"\n');
    expect(transitions(added.createSteps[0]!.markdown)).toBe('  - to: "end"\n    label: "next"\n');
    expect(added.updateSteps[0]!.after.replace(transitions(added.updateSteps[0]!.after), '')).toBe(START_MD.replace(transitions(START_MD), ''));
    const undo = invertChange(added);
    expect(undo.updateSteps).toEqual([{ nodeId: 'start', path: 'workflows/w/steps/start.md', before: added.updateSteps[0]!.after, after: START_MD }]);
  });

  it('a new step lists its own outgoing edges; relabelling and deleting edges follow in the source step', () => {
    const added = changed(addStep(GRAPH, FILES, { from: 'end' }));
    const files = [...FILES.filter((f) => f.nodeId !== 'end'), { ...FILES[0]!, markdown: added.updateSteps[0]!.after }, ...added.createSteps];
    const linked = changed(addEdge(added.after, files, 'step-3', 'start', 'again'));
    expect(linked.updateSteps.map((u) => u.nodeId)).toEqual(['step-3']);
    expect(transitions(linked.updateSteps[0]!.after)).toBe('  - to: "start"\n    label: "again"\n');
    const branched = changed(addEdge(added.after, files, 'start', 'step-3'));
    const relabelled = changed(updateEdge(branched.after, files, 2, { label: 'review', conditionText: 'if unsure' }));
    expect(transitions(relabelled.updateSteps[0]!.after)).toContain('  - to: "step-3"\n    label: "review"\n    conditionText: "if unsure"\n');
    const removed = changed(deleteStep(branched.after, files, 'step-3'));
    // "end" loses its way out; "start" is left with its one way, as its file already says.
    expect(removed.updateSteps.map((u) => u.nodeId)).toEqual(['end']);
    expect(removed.updateSteps[0]!.after).toContain('transitions: []\n');
  });

  it('deleting a step added on the path joins the path again, as it was before the step was added', () => {
    const added = changed(addStep(GRAPH, FILES, { from: 'start' }));
    const files = [...FILES.filter((f) => f.nodeId !== 'start'), { ...FILES.find((f) => f.nodeId === 'start')!, markdown: added.updateSteps.find((u) => u.nodeId === 'start')!.after }, ...added.createSteps];
    const removed = changed(deleteStep(added.after, files, 'step-3'));
    expect(removed.graph.edges).toEqual(JSON.parse(GRAPH).edges);
    // The source step's file leads on to where the deleted step led.
    expect(transitions(removed.updateSteps.find((u) => u.nodeId === 'start')!.after)).toBe('  - to: "end"\n    label: "next"\n');
    // A step with two ways in is not on one path: its edges go with it.
    const branched = changed(addEdge(added.after, files, 'end', 'step-3', 'back'));
    expect(changed(deleteStep(branched.after, files, 'step-3')).graph.edges.filter((e: { to: string }) => e.to === 'end')).toEqual([]);
  });

  it('moving steps rewrites no step file', () => {
    expect(changed(moveNodes(GRAPH, FILES, new Map([['end', { x: 5, y: 300 }]]))).updateSteps).toEqual([]);
  });
});
