import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../test/fixtures/packages.ts';
import { packageFromFiles } from '../bmad/package-files.ts';
import { validatePackage } from '../bmad/pipeline.ts';
import { describeTarget, impactBoundaryStage, isWithinTarget } from './impact-stage.ts';
import type { ImpactBoundaryInput } from './impact-stage.ts';

type Target = ImpactBoundaryInput['target'];

const stepTarget: Target = { targetType: 'step', workflowId: 'wf', targetId: 'step-01', mode: 'optimize' };
const branching = packageFromFiles(loadFixture('branching'));

/** Runs only the impact stage, through the real pipeline, over a valid package. */
function boundaryIssues(input: ImpactBoundaryInput) {
  return validatePackage(branching, { stages: [impactBoundaryStage(input)], replaceDefaultStages: true }).issues;
}

describe('isWithinTarget', () => {
  it('keeps a step target to that one step file', () => {
    expect(isWithinTarget('step:wf/step-01', stepTarget)).toBe(true);
    expect(isWithinTarget('step:wf/step-02', stepTarget)).toBe(false);
    expect(isWithinTarget('step:other/step-01', stepTarget)).toBe(false);
    expect(isWithinTarget('workflow:wf', stepTarget)).toBe(false);
    expect(isWithinTarget('graph:wf', stepTarget)).toBe(false);
  });

  it('lets a step create without an id add any step of its workflow', () => {
    const target: Target = { targetType: 'step', workflowId: 'wf', targetId: null, mode: 'create' };
    expect(isWithinTarget('step:wf/new-step', target)).toBe(true);
    expect(isWithinTarget('step:other/new-step', target)).toBe(false);
    // Every new step changes its workflow's graph and Steps Index: not a cross-object change.
    expect(isWithinTarget('graph:wf', target)).toBe(true);
    expect(isWithinTarget('workflow:wf', target)).toBe(true);
    expect(isWithinTarget('graph:other', target)).toBe(false);
    expect(isWithinTarget('workflow-name:wf', target)).toBe(false);
    expect(isWithinTarget('graph:wf', { ...target, mode: 'optimize' })).toBe(false);
    expect(isWithinTarget('step:wf/new-step', { ...target, mode: 'optimize' })).toBe(false);
  });

  it('gives a workflow target its workflow.md, graph and steps', () => {
    const target: Target = { targetType: 'workflow', workflowId: 'wf', targetId: 'wf', mode: 'optimize' };
    for (const key of ['workflow:wf', 'graph:wf', 'step:wf/any']) expect(isWithinTarget(key, target)).toBe(true);
    for (const key of ['workflow:other', 'step:other/a', 'agent:wf', 'asset:assets/wf.md', 'workflow-name:wf']) {
      expect(isWithinTarget(key, target)).toBe(false);
    }
    // The target id stands in when workflowId is null.
    expect(isWithinTarget('graph:wf', { ...target, workflowId: null })).toBe(true);
  });

  it('lets a workflow create without an id touch any workflow, graph or step', () => {
    const target: Target = { targetType: 'workflow', workflowId: null, targetId: null, mode: 'create' };
    for (const key of ['workflow:new', 'graph:new', 'step:new/a']) expect(isWithinTarget(key, target)).toBe(true);
    expect(isWithinTarget('agent:a', target)).toBe(false);
    expect(isWithinTarget('graph:new', { ...target, mode: 'optimize' })).toBe(false);
  });

  it('keeps agent and asset targets to their one object, or any of their kind in create without an id', () => {
    const agent: Target = { targetType: 'agent', workflowId: null, targetId: 'writer', mode: 'optimize' };
    expect(isWithinTarget('agent:writer', agent)).toBe(true);
    expect(isWithinTarget('agent:editor', agent)).toBe(false);
    expect(isWithinTarget('agent:editor', { ...agent, targetId: null, mode: 'create' })).toBe(true);
    expect(isWithinTarget('asset:assets/a.md', { ...agent, targetId: null, mode: 'create' })).toBe(false);

    const asset: Target = { targetType: 'asset', workflowId: null, targetId: 'assets/a.md', mode: 'optimize' };
    expect(isWithinTarget('asset:assets/a.md', asset)).toBe(true);
    expect(isWithinTarget('asset:assets/b.md', asset)).toBe(false);
    expect(isWithinTarget('asset:assets/b.md', { ...asset, targetId: null, mode: 'create' })).toBe(true);
  });

  it('treats a key it cannot read as outside', () => {
    expect(isWithinTarget('step-01', stepTarget)).toBe(false);
  });
});

describe('impactBoundaryStage', () => {
  it('is stage 4 of the pipeline', () => {
    const stage = impactBoundaryStage({ target: stepTarget, changedKeys: [] });
    expect([stage.id, stage.order]).toEqual(['impact-boundary', 4]);
  });

  it('accepts changes within the target', () => {
    expect(boundaryIssues({ target: stepTarget, changedKeys: ['step:wf/step-01'] })).toEqual([]);
  });

  it('flags every change outside the target as a cross-object warning, never an error', () => {
    const issues = boundaryIssues({
      target: stepTarget,
      changedKeys: ['step:wf/step-01', 'step:wf/other', 'asset:assets/x.md', 'step:wf/other'],
      pathOf: (key) => (key === 'step:wf/other' ? 'workflows/wf/steps/other.md' : undefined),
    });
    expect(issues).toEqual([
      {
        severity: 'warning',
        code: 'AI_CROSS_OBJECT_CHANGE',
        filePath: 'workflows/wf/steps/other.md',
        message: 'Cross-object change: step:wf/other is outside the target (step wf/step-01). Reviewers, check it on purpose.',
        hint: 'Keep it if the target needs it; otherwise leave the object unchanged.',
      },
      {
        severity: 'warning',
        code: 'AI_CROSS_OBJECT_CHANGE',
        filePath: 'asset:assets/x.md',
        message: 'Cross-object change: asset:assets/x.md is outside the target (step wf/step-01). Reviewers, check it on purpose.',
        hint: 'Keep it if the target needs it; otherwise leave the object unchanged.',
      },
    ]);
  });

  it('lets a create without an id add objects of its kind, and flags anything else', () => {
    const target: Target = { targetType: 'asset', workflowId: null, targetId: null, mode: 'create' };
    const issues = boundaryIssues({ target, changedKeys: ['asset:assets/new.md', 'step:wf/a'] });
    expect(issues.map((i) => [i.severity, i.filePath])).toEqual([['warning', 'step:wf/a']]);
    expect(issues[0]?.message).toContain('(a new asset)');
  });
});

describe('describeTarget', () => {
  it('names the target for people', () => {
    expect(describeTarget(stepTarget)).toBe('step wf/step-01');
    expect(describeTarget({ ...stepTarget, targetId: null, mode: 'create' })).toBe('a new step in workflow wf');
    expect(describeTarget({ targetType: 'workflow', workflowId: 'wf', targetId: null, mode: 'optimize' })).toBe('workflow wf');
    expect(describeTarget({ targetType: 'workflow', workflowId: null, targetId: null, mode: 'create' })).toBe('a new workflow');
    expect(describeTarget({ targetType: 'asset', workflowId: null, targetId: 'assets/a.md', mode: 'optimize' })).toBe('asset assets/a.md');
  });
});
