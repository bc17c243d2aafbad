import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../test/fixtures/packages.ts';
import { packageFromFiles, packageToFiles } from './package-files.ts';
import type { BmadPackage } from './package.ts';
import { validatePackage } from './pipeline.ts';
import { newStepFilePath, pathProblem, portableSegment, windowsNameProblem } from './portable-names.ts';

/** A test package with some names replaced, in paths and texts alike (ids, node files, links). */
function renamed(name: 'branching' | 'two-workflows', pairs: Array<[string, string]>): Map<string, string> {
  const sub = (text: string) => pairs.reduce((acc, [from, to]) => acc.split(from).join(to), text);
  return new Map([...loadFixture(name)].map(([path, text]) => [sub(path), sub(text)]));
}

/** Workflow ids, node ids, edges and each step's text by node id: what must survive an export. */
function content(pkg: BmadPackage) {
  return pkg.workflows.map((w) => {
    const graph = JSON.parse(w.graphJson!) as { entryNodeId: string; nodes: Array<{ id: string }>; edges: unknown[] };
    return {
      id: w.id,
      entry: graph.entryNodeId,
      nodes: graph.nodes.map((n) => n.id),
      edges: graph.edges,
      steps: Object.fromEntries(w.steps.map((s) => [s.nodeId, s.markdown])),
    };
  });
}

const portabilityCodes = (pkg: BmadPackage) =>
  validatePackage(pkg).warnings.filter((w) => w.code === 'STEP_FILE_NOT_PORTABLE' || w.code === 'WORKFLOW_FOLDER_NOT_PORTABLE');

describe('names Windows cannot create', () => {
  it('are told apart from portable ones', () => {
    expect(windowsNameProblem('review:final.md')).toBe('it contains ":"');
    expect(windowsNameProblem('a*b?.md')).toBe('it contains "*" and "?"');
    expect(windowsNameProblem('tab\there.md')).toBe('it contains a control character');
    expect(windowsNameProblem('notes.')).toBe('it ends with a dot');
    expect(windowsNameProblem('notes ')).toBe('it ends with a space');
    expect(windowsNameProblem('nul.md')).toBe('NUL is a device name there');
    expect(windowsNameProblem('COM1')).toBe('COM1 is a device name there');
    for (const fine of ['step-01.md', 'null.md', 'console.md', 'com10.md', 'a.b.c.md', 'über.md']) expect(windowsNameProblem(fine), fine).toBeUndefined();
    expect(pathProblem('workflows/a:b/steps/x.md')).toEqual({ segment: 'a:b', reason: 'it contains ":"' });
  });

  it('get a portable name; a portable name is kept', () => {
    expect(portableSegment('review:final.md')).toBe('review_final.md');
    expect(portableSegment('a<b>"c"|d.md')).toBe('a_b__c__d.md');
    expect(portableSegment('nul.md')).toBe('nul_.md');
    expect(portableSegment('LPT3')).toBe('LPT3_');
    expect(portableSegment('notes. ')).toBe('notes__');
    expect(portableSegment('step-01.md')).toBe('step-01.md');
    for (const name of ['review:final.md', 'nul.md', 'notes. ', 'x?.md']) expect(windowsNameProblem(portableSegment(name)), name).toBeUndefined();
  });
});

describe('a step id with ":" (step file named after it) and a workflow id with ":"', () => {
  const files = renamed('two-workflows', [
    ['weekly-report', 'support:weekly'],
    ['escalate-ticket', 'escalate:ticket'],
    ['steps/closed.md', 'steps/NUL.md'],
  ]);

  it('is valid, with a warning naming each step and workflow, the name the export writes, and Windows', () => {
    const report = validatePackage(packageFromFiles(files));
    expect(report.errors).toEqual([]);
    const warnings = portabilityCodes(packageFromFiles(files));
    expect(warnings.map((w) => [w.code, w.filePath, w.pointer, w.params])).toEqual([
      ['STEP_FILE_NOT_PORTABLE', 'workflows/ticket-triage/workflow.graph.json', '/nodes/5/file', { id: 'escalate:ticket', file: 'workflows/ticket-triage/steps/escalate:ticket.md', to: 'workflows/ticket-triage/steps/escalate_ticket.md' }],
      ['STEP_FILE_NOT_PORTABLE', 'workflows/ticket-triage/workflow.graph.json', '/nodes/8/file', { id: 'closed', file: 'workflows/ticket-triage/steps/NUL.md', to: 'workflows/ticket-triage/steps/NUL_.md' }],
      ['WORKFLOW_FOLDER_NOT_PORTABLE', 'workflows/support:weekly/workflow.md', undefined, { id: 'support:weekly', folder: 'workflows/support:weekly/', to: 'workflows/support_weekly/' }],
    ]);
    expect(warnings[0]!.message).toBe(
      'Step "escalate:ticket" is stored as workflows/ticket-triage/steps/escalate:ticket.md, a file name Windows cannot unpack (it contains ":"). The .bmad export writes it as workflows/ticket-triage/steps/escalate_ticket.md and the graph records that name; a BMAD-METHOD export keeps the name, so that zip will not unpack on Windows.',
    );
    expect(warnings[1]!.message).toContain('(NUL is a device name there)');
    for (const w of warnings) expect(w.hint).toMatch(/BMAD-METHOD export that opens on Windows/u);
  });

  it('exports under portable names with every id kept, and import → export → import round-trips exactly', () => {
    const imported = packageFromFiles(files);
    const exported = packageToFiles(imported);
    expect([...exported.keys()].filter((p) => pathProblem(p) !== undefined)).toEqual([]);
    expect([...exported.keys()]).toEqual(
      expect.arrayContaining(['workflows/ticket-triage/steps/escalate_ticket.md', 'workflows/ticket-triage/steps/NUL_.md', 'workflows/support_weekly/workflow.md']),
    );
    const manifest = JSON.parse(exported.get('bmad.json')!) as { workflows: Array<{ id: string; workflow: string; graph: string }> };
    expect(manifest.workflows[1]).toMatchObject({ id: 'support:weekly', workflow: 'workflows/support_weekly/workflow.md', graph: 'workflows/support_weekly/workflow.graph.json' });

    const again = packageFromFiles(exported);
    expect(validatePackage(again).errors).toEqual([]);
    expect(portabilityCodes(again)).toEqual([]);
    expect(content(again)).toEqual(content(imported));
    expect(packageToFiles(again)).toEqual(exported);
  });

  it('gives a renamed file a free name when the portable one is taken, and the warning says that name', () => {
    const taken = renamed('branching', [['steps/03b-advanced-plan.md', 'steps/plan_x.md'], ['steps/03a-beginner-plan.md', 'steps/plan:x.md']]);
    const pkg = packageFromFiles(taken);
    expect(portabilityCodes(pkg).map((w) => w.params)).toEqual([{ id: 'beginner-plan', file: 'steps/plan:x.md', to: 'workflows/main/steps/plan_x-2.md' }]);
    const exported = packageToFiles(pkg);
    const nodes = (JSON.parse(exported.get('workflows/main/workflow.graph.json')!) as { nodes: Array<{ id: string; file: string }> }).nodes;
    expect(nodes.filter((n) => n.id.endsWith('-plan')).map((n) => `${n.id} ${n.file}`)).toEqual([
      'beginner-plan workflows/main/steps/plan_x-2.md',
      'advanced-plan workflows/main/steps/plan_x.md',
    ]);
    expect(content(packageFromFiles(exported))).toEqual(content(pkg));
  });
});

describe('links to a renamed step file', () => {
  it('follow it: the Steps Index of workflow.md still links every step', () => {
    const files = renamed('branching', [['beginner-plan', 'plan:beginner']]);
    expect(files.get('workflow.md')).toContain('- [plan:beginner](steps/03a-plan:beginner.md)');
    const exported = packageToFiles(packageFromFiles(files));
    const workflowMd = exported.get('workflows/main/workflow.md')!;
    expect(workflowMd).toContain('- [plan:beginner](steps/03a-plan_beginner.md)');
    // Only the link changed.
    expect(workflowMd.replace('03a-plan_beginner.md', '03a-plan:beginner.md')).toBe(files.get('workflow.md'));
    const again = validatePackage(packageFromFiles(exported));
    expect(again.errors).toEqual([]);
    expect(again.warnings.map((w) => w.code)).not.toContain('WORKFLOW_STEPS_INDEX_BROKEN_LINK');
  });
});

describe('the file of a new step', () => {
  it('is named after its id in a portable form, numbered past files in use', () => {
    expect(newStepFilePath('workflows/w/steps', 'review')).toBe('workflows/w/steps/review.md');
    expect(newStepFilePath('workflows/w/steps', 'review:final')).toBe('workflows/w/steps/review_final.md');
    expect(newStepFilePath('workflows/w/steps', 'nul')).toBe('workflows/w/steps/nul_.md');
    expect(newStepFilePath('workflows/w/steps', 'v1.')).toBe('workflows/w/steps/v1..md');
    const taken = new Set(['workflows/w/steps/review_final.md', 'workflows/w/steps/review_final-2.md']);
    expect(newStepFilePath('workflows/w/steps', 'review:final', (p) => taken.has(p))).toBe('workflows/w/steps/review_final-3.md');
    expect(pathProblem(newStepFilePath('workflows/w/steps', 'a<b>|c*?"d'))).toBeUndefined();
  });
});
