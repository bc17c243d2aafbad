import { describe, expect, it } from 'vitest';
import type { StepView } from '../../shared/api/index.ts';
import { newStepFilePath, stepFileChange } from './step-file-change.ts';

const graphText = (nodes: unknown[], edges: unknown[] = []) => `${JSON.stringify({ schemaVersion: '1.1', entryNodeId: 'start', nodes, edges }, null, 2)}\n`;
const template = (nodeId: string) => `---\nschemaVersion: "1.1"\nnodeId: "${nodeId}"\ntype: "step"\ntitle: "Wrap up"\ntransitions: []\n---\n\n# Wrap up\n\n## Goal\n\nG.\n\n## Instructions\n\n1. I.\n`;

describe('giving a node that names no step file one', () => {
  const nodes = [
    { id: 'start', type: 'step', file: 'flows/steps/start.md', title: 'Start' },
    { id: 'wrap-up', type: 'step', title: 'Wrap up' },
    { id: 'end', type: 'end', file: 'flows/steps/end.md', title: 'End' },
  ];
  const edges = [
    { from: 'start', to: 'wrap-up', label: 'next' },
    { from: 'wrap-up', to: 'end', label: 'next' },
  ];
  const steps: StepView[] = [
    { nodeId: 'start', path: 'flows/steps/start.md', markdown: '# s' },
    { nodeId: 'end', path: 'flows/steps/end.md', markdown: '# e' },
  ];

  it('names a file beside the others and creates it with the node’s transitions, as one change', () => {
    const edit = stepFileChange(graphText(nodes, edges), steps, 'wrap-up', template('wrap-up'), 'Create');
    if (!edit.ok) throw new Error(edit.message);
    const after = JSON.parse(edit.change.after) as { nodes: Array<{ id: string; file?: string }> };
    expect(after.nodes.find((n) => n.id === 'wrap-up')?.file).toBe('flows/steps/wrap-up.md');
    // Nothing else in the graph changes.
    expect(after.nodes.filter((n) => n.id !== 'wrap-up')).toEqual(nodes.filter((n) => n.id !== 'wrap-up'));
    expect(edit.change.createSteps).toHaveLength(1);
    expect(edit.change.createSteps[0]).toMatchObject({ nodeId: 'wrap-up', path: 'flows/steps/wrap-up.md' });
    expect(edit.change.createSteps[0]!.markdown).toMatch(/to: "?end"?/);
    expect(edit.change.updateSteps).toEqual([]);
    expect(edit.change.deleteSteps).toEqual([]);
  });

  it('never takes a path another step or node already has', () => {
    const taken = [...steps, { nodeId: 'old', path: 'flows/steps/wrap-up.md', markdown: '# o' }];
    expect(newStepFilePath(nodes, taken, 'wrap-up')).toBe('flows/steps/wrap-up-2.md');
    expect(newStepFilePath([{ id: 'odd:id' }], [], 'odd:id')).toBe('steps/odd-id.md');
  });

  it('refuses when the node already has a stored step file, or is not in the graph', () => {
    const withStored = [...steps, { nodeId: 'wrap-up', path: 'elsewhere/wrap-up.md', markdown: '# w' }];
    expect(stepFileChange(graphText(nodes, edges), withStored, 'wrap-up', template('wrap-up'), 'Create').ok).toBe(false);
    expect(stepFileChange(graphText(nodes, edges), steps, 'missing', template('missing'), 'Create').ok).toBe(false);
  });
});
