/** References between steps, agents and assets, over the effective package. */
import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../../test/fixtures/packages.ts';
import { packageFromFiles, toMultiWorkflowLayout } from '../../../shared/bmad/index.ts';
import type { OverlayEntry } from '../../../shared/ai/overlay.ts';
import { contentOf, effectivePackage } from '../overlay/effective-view.ts';
import { assetPathsOfStep, refCoversAsset, refsOfAgent, refsOfAsset, refsOfStep, refsOfWorkflow, sortRefs } from './refs.ts';
import type { Ref } from './refs.ts';

const EC = 'ticket-triage';
const VA = 'weekly-report';
const baseline = toMultiWorkflowLayout(packageFromFiles(loadFixture('two-workflows')));
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
    expect(refsOfStep(baseline, EC, 'classify-issue')).toEqual({
      inbound: [{ type: 'workflow', workflowId: EC }, step(EC, 'ask-customer'), step(EC, 'receive-ticket')],
      outbound: [step(EC, 'decide-details'), { type: 'agent', agentId: 'triager' }, { type: 'asset', path: 'assets/policies/support-policy.md' }],
    });
  });

  it('an asset: the steps of any workflow that mention it', () => {
    expect(refsOfAsset(baseline, 'assets/policies/support-policy.md')).toEqual({ inbound: [step(EC, 'classify-issue')], outbound: [] });
    expect(refsOfAsset(baseline, 'assets/data/sla-targets.yaml').inbound).toEqual([step(VA, 'count-backlog')]);
    expect(refsOfAsset(baseline, 'assets/unused.md')).toEqual({ inbound: [], outbound: [] });
  });

  it('an agent: the steps that use it, across workflows', () => {
    expect(refsOfAgent(baseline, 'supervisor').inbound).toEqual([
      step(EC, 'closed'),
      step(EC, 'merge-outcome'),
      step(EC, 'resolve-ticket'),
      step(VA, 'publish'),
    ]);
  });

  it('a workflow: its steps and the agents they use', () => {
    expect(refsOfWorkflow(baseline, VA)).toEqual({
      inbound: [],
      outbound: [
        step(VA, 'count-backlog'),
        step(VA, 'explain-trends'),
        step(VA, 'export-tickets'),
        step(VA, 'publish'),
        { type: 'agent', agentId: 'reporter' },
        { type: 'agent', agentId: 'supervisor' },
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
    graph.edges.push({ from: 'export-tickets', to: 'publish', label: 'skip' });
    const edited = contentOf(baseline, `step:${VA}/export-tickets`)!.replace('## Goal', 'Uses @pkg/assets/policies/support-policy.md.\n\n## Goal');
    const pkg = effectivePackage(baseline, [put(`graph:${VA}`, JSON.stringify(graph)), put(`step:${VA}/export-tickets`, edited)]);
    expect(refsOfStep(pkg, VA, 'export-tickets').outbound).toEqual([
      step(VA, 'count-backlog'),
      step(VA, 'publish'),
      { type: 'agent', agentId: 'reporter' },
      { type: 'asset', path: 'assets/policies/support-policy.md' },
    ]);
    expect(refsOfStep(pkg, VA, 'publish').inbound).toContainEqual(step(VA, 'export-tickets'));
    expect(refsOfAsset(pkg, 'assets/policies/support-policy.md').inbound).toEqual([step(EC, 'classify-issue'), step(VA, 'export-tickets')]);
  });
});
