import { describe, expect, it } from 'vitest';
import { planStepFiles } from './graph-edit-steps.ts';
import { errorIssue, warningIssue } from './issues.ts';
import { newErrors, workflowIssues } from './workflow-edit-check.ts';

const step = (id: string, transitions = 'transitions: []\n') =>
  `---\nschemaVersion: "1.1"\nnodeId: "${id}"\ntype: "${id === 'end' ? 'end' : 'step'}"\n${transitions}---\n\n# ${id}\n\n## Goal\n\nG.\n\n## Instructions\n\n1. I.\n`;

function graph(edges: object[], extraNodes: object[] = []): string {
  return JSON.stringify({
    schemaVersion: '1.1',
    entryNodeId: 'start',
    nodes: [
      { id: 'start', type: 'step', file: 'w/steps/start.md' },
      { id: 'end', type: 'end', file: 'w/steps/end.md' },
      ...extraNodes,
    ],
    edges,
  });
}

const BEFORE = graph([{ from: 'start', to: 'end', label: 'next' }]);
const STORED = [
  { nodeId: 'start', path: 'w/steps/start.md', markdown: step('start', 'transitions:\n  - to: "end"\n    label: "next"\n') },
  { nodeId: 'end', path: 'w/steps/end.md', markdown: step('end') },
];

describe('newErrors', () => {
  const a = errorIssue('GRAPH_DEFAULT_EDGE_MISSING', 'g.json', 'Node "a" has 2 outgoing edges but none is the default.');
  const aGrown = errorIssue('GRAPH_DEFAULT_EDGE_MISSING', 'g.json', 'Node "a" has 3 outgoing edges but none is the default.');
  const b = errorIssue('GRAPH_DEFAULT_EDGE_MISSING', 'g.json', 'Node "b" has 2 outgoing edges but none is the default.');

  it('ignores a problem that was there before, even when its words change, and warnings', () => {
    expect(newErrors([a], [aGrown])).toEqual([]);
    expect(newErrors([], [warningIssue('GRAPH_NODE_UNREACHABLE', 'g.json', 'x')])).toEqual([]);
  });

  it('names each error the edit adds', () => {
    expect(newErrors([a], [a, b])).toEqual([b]);
    expect(newErrors([], [a, b])).toEqual([a, b]);
  });
});

describe('workflowIssues', () => {
  it('runs the graph and step rules of one workflow without the rest of the package', () => {
    const files = { graphPath: 'w/workflow.graph.json', workflowMdPath: 'w/workflow.md', steps: STORED };
    expect(workflowIssues({ ...files, graphJson: BEFORE }).filter((i) => i.severity === 'error')).toEqual([]);
    const twoOut = graph([
      { from: 'start', to: 'end', label: 'next' },
      { from: 'start', to: 'start', label: 'again' },
    ]);
    const codes = workflowIssues({ ...files, graphJson: twoOut }).map((i) => i.code);
    expect(codes).toContain('GRAPH_DEFAULT_EDGE_MISSING');
    expect(workflowIssues({ ...files, graphJson: graph([], [{ id: 'x', type: 'step', file: 'w/steps/x.md' }]) }).map((i) => i.code)).toEqual(
      expect.arrayContaining(['STEP_FILE_MISSING', 'GRAPH_MULTIPLE_START_NODES']),
    );
  });
});

describe('planStepFiles', () => {
  const after = graph(
    [
      { from: 'start', to: 'end', label: 'next', isDefault: true },
      { from: 'start', to: 'x', label: 'side' },
      { from: 'x', to: 'end', label: 'back' },
    ],
    [{ id: 'x', type: 'step', file: 'w/steps/x.md' }],
  );

  it('derives the transitions of created steps and of steps whose edges changed, whatever the client sent', () => {
    const plan = planStepFiles({ before: BEFORE, after, stored: STORED, createSteps: [{ nodeId: 'x', markdown: step('x') }], updateSteps: [], deleteSteps: [] });
    expect(plan.problems).toEqual([]);
    expect(plan.creates[0]!.markdown).toContain('transitions:\n  - to: "end"\n    label: "back"\n');
    expect(plan.updates.map((u) => u.nodeId)).toEqual(['start']);
    expect(plan.updates[0]!.markdown).toContain('  - to: "x"\n    label: "side"\n');
    expect(plan.updates[0]!.before).toBe(STORED[0]!.markdown);
  });

  it('fixes an update whose transitions are wrong and refuses one that changes more', () => {
    const wrong = STORED[0]!.markdown.replace('to: "end"', 'to: "nowhere"');
    const fixed = planStepFiles({ before: BEFORE, after, stored: STORED, createSteps: [], updateSteps: [{ nodeId: 'start', markdown: wrong }], deleteSteps: [] });
    expect(fixed.problems).toEqual([]);
    expect(fixed.updates[0]!.markdown).not.toContain('nowhere');
    const more = STORED[0]!.markdown.replace('G.', 'Other goal.');
    const refused = planStepFiles({ before: BEFORE, after, stored: STORED, createSteps: [], updateSteps: [{ nodeId: 'start', markdown: more }], deleteSteps: [] });
    expect(refused.problems).toEqual(['A graph edit may change only the transitions of “start”; save other changes in its step editor.']);
    const ghost = planStepFiles({ before: BEFORE, after, stored: STORED, createSteps: [], updateSteps: [{ nodeId: 'ghost', markdown: '' }], deleteSteps: [] });
    expect(ghost.problems).toEqual(['There is no step file of “ghost” to update.']);
  });

  it('keeps an undo byte for byte: a file whose transitions already agree is written as sent', () => {
    const synced = planStepFiles({ before: BEFORE, after, stored: STORED, createSteps: [], updateSteps: [], deleteSteps: [] }).updates[0]!;
    const stored = [{ ...STORED[0]!, markdown: synced.markdown }, STORED[1]!];
    const undo = planStepFiles({ before: after, after: BEFORE, stored, createSteps: [], updateSteps: [{ nodeId: 'start', markdown: STORED[0]!.markdown }], deleteSteps: [] });
    expect(undo.updates).toEqual([{ ...stored[0], markdown: STORED[0]!.markdown, before: synced.markdown }]);
  });
});
