/** References between steps, agents and assets, over the effective package. */
import { describe, expect, it } from 'vitest';
import { loadExample } from '../../../test/spec/examples.ts';
import { packageFromFiles, toMultiWorkflowLayout } from '../../../shared/bmad/index.ts';
import type { OverlayEntry } from '../../../shared/ai/overlay.ts';
import { contentOf, effectivePackage } from '../effective-view.ts';
import { assetPathsOfStep, refCoversAsset, refsOfAgent, refsOfAsset, refsOfStep, refsOfWorkflow, sortRefs } from './refs.ts';
import type { Ref } from './refs.ts';

const EC = 'expense-compliance';
const VA = 'variance-analysis';
const baseline = toMultiWorkflowLayout(packageFromFiles(loadExample('expense-ops')));
const put = (key: string, content: string): OverlayEntry => ({ key, deleted: false, content, baseRevision: 1, baseHash: null });
const step = (workflowId: string, nodeId: string): Ref => ({ type: 'step', workflowId, nodeId });

describe('assetPathsOfStep', () => {
  it('finds assets in the body and the frontmatter, but not in outputs', () => {
    const markdown = `---
schemaVersion: "1.1"
nodeId: "a"
type: "step"
inputs: ["assets/in.md", "artifacts/x.md"]
outputs: ["assets/written-by-the-step.md"]
---

## Instructions

Read @pkg/assets/b.yaml and assets/in.md, then assets/folder/.
`;
    expect(assetPathsOfStep(markdown)).toEqual(['assets/b.yaml', 'assets/folder/', 'assets/in.md']);
  });

  it('reads a step whose frontmatter does not parse as plain text', () => {
    expect(assetPathsOfStep('no frontmatter, see @pkg/assets/x.md')).toEqual(['assets/x.md']);
  });

  it('lets a folder reference cover the assets inside it', () => {
    expect(refCoversAsset('assets/folder/', 'assets/folder/a.md')).toBe(true);
    expect(refCoversAsset('assets/folder', 'assets/folder/a.md')).toBe(false);
    expect(refCoversAsset('assets/a.md', 'assets/a.md')).toBe(true);
  });
});

describe('sortRefs', () => {
  it('removes duplicates and orders by type, then id', () => {
    const refs: Ref[] = [
      { type: 'asset', path: 'assets/b.md' },
      step('w', 'z'),
      { type: 'agent', agentId: 'x' },
      { type: 'workflow', workflowId: 'w' },
      step('w', 'a'),
      { type: 'asset', path: 'assets/a.md' },
      step('w', 'z'),
    ];
    expect(sortRefs(refs)).toEqual([
      { type: 'workflow', workflowId: 'w' },
      step('w', 'a'),
      step('w', 'z'),
      { type: 'agent', agentId: 'x' },
      { type: 'asset', path: 'assets/a.md' },
      { type: 'asset', path: 'assets/b.md' },
    ]);
  });
});

describe('refs of the example package', () => {
  it('a step: successors, agent and assets out; predecessors and its workflow in', () => {
    expect(refsOfStep(baseline, EC, 'check-lines')).toEqual({
      inbound: [{ type: 'workflow', workflowId: EC }, step(EC, 'collect-report'), step(EC, 'request-receipts')],
      outbound: [step(EC, 'decide-complete'), { type: 'agent', agentId: 'auditor' }, { type: 'asset', path: 'assets/policies/expense-policy.md' }],
    });
  });

  it('an asset: the steps of any workflow that mention it', () => {
    expect(refsOfAsset(baseline, 'assets/policies/expense-policy.md')).toEqual({ inbound: [step(EC, 'check-lines')], outbound: [] });
    expect(refsOfAsset(baseline, 'assets/data/thresholds.yaml').inbound).toEqual([step(VA, 'compute-variance')]);
    expect(refsOfAsset(baseline, 'assets/unused.md')).toEqual({ inbound: [], outbound: [] });
  });

  it('an agent: the steps that use it, across workflows', () => {
    expect(refsOfAgent(baseline, 'controller').inbound).toEqual([
      step(EC, 'approve-report'),
      step(EC, 'end'),
      step(EC, 'merge-result'),
      step(VA, 'done'),
    ]);
  });

  it('a workflow: its steps and the agents they use', () => {
    expect(refsOfWorkflow(baseline, VA)).toEqual({
      inbound: [],
      outbound: [
        step(VA, 'compute-variance'),
        step(VA, 'done'),
        step(VA, 'explain-variance'),
        step(VA, 'load-ledger'),
        { type: 'agent', agentId: 'analyst' },
        { type: 'agent', agentId: 'controller' },
      ],
    });
  });

  it('is empty for objects that do not exist', () => {
    expect(refsOfStep(baseline, EC, 'nope')).toEqual({ inbound: [], outbound: [] });
    expect(refsOfWorkflow(baseline, 'nope')).toEqual({ inbound: [], outbound: [] });
  });
});

describe('refs over the effective package', () => {
  it('follows staged steps and graphs, not the baseline', () => {
    const graph = JSON.parse(contentOf(baseline, `graph:${VA}`)!) as { edges: Array<Record<string, unknown>> };
    graph.edges.push({ from: 'load-ledger', to: 'done', label: 'skip' });
    const edited = contentOf(baseline, `step:${VA}/load-ledger`)!.replace('## Goal', 'Uses @pkg/assets/policies/expense-policy.md.\n\n## Goal');
    const pkg = effectivePackage(baseline, [put(`graph:${VA}`, JSON.stringify(graph)), put(`step:${VA}/load-ledger`, edited)]);
    expect(refsOfStep(pkg, VA, 'load-ledger').outbound).toEqual([
      step(VA, 'compute-variance'),
      step(VA, 'done'),
      { type: 'agent', agentId: 'analyst' },
      { type: 'asset', path: 'assets/policies/expense-policy.md' },
    ]);
    expect(refsOfStep(pkg, VA, 'done').inbound).toContainEqual(step(VA, 'load-ledger'));
    expect(refsOfAsset(pkg, 'assets/policies/expense-policy.md').inbound).toEqual([step(EC, 'check-lines'), step(VA, 'load-ledger')]);
  });
});
