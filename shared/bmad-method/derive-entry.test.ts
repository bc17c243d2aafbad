/**
 * Which step a BMAD-METHOD workflow starts at when its workflow.md names a later one: real
 * workflows (party-mode) name only the step the conversation runs in, while the first step file,
 * which nothing links to, links straight to it. Small uploads written here, imported valid and
 * exported back byte for byte.
 */
import { describe, expect, it } from 'vitest';
import { validatePackage } from '../bmad/pipeline.ts';
import { deriveBmadMethod } from './derive.ts';
import { exportBmadMethod } from './export.ts';

const upload = (files: Record<string, string>) => new Map(Object.entries(files));
const sorted = (files: Map<string, string>) => new Map([...files].sort(([a], [b]) => a.localeCompare(b)));
const codes = (d: ReturnType<typeof deriveBmadMethod>) => d.issues.map((i) => `${i.code} ${i.filePath}`);
const edges = (d: ReturnType<typeof deriveBmadMethod>) => d.workflows[0]!.graph.edges.map((e) => `${e.from} -> ${e.to}`);

function roundTrip(files: Map<string, string>) {
  const d = deriveBmadMethod(files);
  expect(validatePackage(d.pkg).errors).toEqual([]);
  expect(exportBmadMethod(d.pkg, d.origin).files).toEqual(sorted(files));
  return d;
}

const WORKFLOW = `---
name: round-table
description: Several voices discuss one topic.
---

# Round Table

Step 1 gathers the voices, step 2 runs the talk, step 3 closes it.

## Start

Load \`./steps/step-02-talk.md\` and begin.
`;

const GATHER = `# Step 1: Gather the voices

Read the roster and introduce three voices.

Then load \`./step-02-talk.md\`.
`;

const TALK = `# Step 2: Talk

Let the voices answer the person in turn.

- [C] Continue: another round, load \`./step-02-talk.md\` again
- [E] Exit: load \`./step-03-close.md\`
`;

const CLOSE = `# Step 3: Close

Each voice says goodbye.
`;

describe('the entry step when workflow.md names a later one', () => {
  it('a step nothing links to that links to the named step is the first step (party-mode), not an orphan asset', () => {
    const files = upload({
      'round-table/workflow.md': WORKFLOW,
      'round-table/steps/step-01-gather.md': GATHER,
      'round-table/steps/step-02-talk.md': TALK,
      'round-table/steps/step-03-close.md': CLOSE,
    });
    const d = roundTrip(files);
    const graph = d.workflows[0]!.graph;
    expect(graph.entryNodeId).toBe('step-01-gather');
    expect(edges(d)).toEqual(['step-01-gather -> step-02-talk', 'step-02-talk -> step-03-close']);
    expect(codes(d)).not.toContain('BMAD_STEP_ORPHAN round-table/steps/step-01-gather.md');
    expect(d.pkg.assets.map((a) => a.path)).toEqual([]);
    expect(d.workflows[0]!.steps.map((s) => s.nodeId)).toEqual(['step-01-gather', 'step-02-talk', 'step-03-close']);
  });

  it('a chain of such steps starts at its first', () => {
    const files = upload({
      'round-table/workflow.md': WORKFLOW,
      'round-table/steps/step-00-check.md': '# Step 0: Check the roster exists\n\nThen load `./step-01-gather.md`.\n',
      'round-table/steps/step-01-gather.md': GATHER,
      'round-table/steps/step-02-talk.md': TALK,
      'round-table/steps/step-03-close.md': CLOSE,
    });
    const d = roundTrip(files);
    expect(d.workflows[0]!.graph.entryNodeId).toBe('step-00-check');
    expect(edges(d)).toEqual(['step-00-check -> step-01-gather', 'step-01-gather -> step-02-talk', 'step-02-talk -> step-03-close']);
  });

  it('keeps the named step as the entry when two unlinked steps lead to it (which comes first is unclear), and when a later step only links back', () => {
    const two = deriveBmadMethod(
      upload({
        'round-table/workflow.md': WORKFLOW,
        'round-table/steps/step-01-gather.md': GATHER,
        'round-table/steps/step-01b-resume.md': '# Resume\n\nThen load `./step-02-talk.md`.\n',
        'round-table/steps/step-02-talk.md': TALK,
        'round-table/steps/step-03-close.md': CLOSE,
      }),
    );
    expect(two.workflows[0]!.graph.entryNodeId).toBe('step-02-talk');
    expect(codes(two)).toEqual(expect.arrayContaining(['BMAD_STEP_ORPHAN round-table/steps/step-01-gather.md', 'BMAD_STEP_ORPHAN round-table/steps/step-01b-resume.md']));

    // step-03 links back to the entry, but the entry reaches it: it is a later step, not a first one.
    const back = roundTrip(
      upload({
        'round-table/workflow.md': WORKFLOW,
        'round-table/steps/step-02-talk.md': TALK,
        'round-table/steps/step-03-close.md': `${CLOSE}\n[Back] load \`./step-02-talk.md\`\n`,
      }),
    );
    expect(back.workflows[0]!.graph.entryNodeId).toBe('step-02-talk');
  });
});
