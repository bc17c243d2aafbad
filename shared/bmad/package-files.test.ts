import { describe, expect, it } from 'vitest';
import { loadExample } from '../../test/spec/examples.ts';
import { deriveManifest, packageFromFiles, packageToFiles } from './package-files.ts';
import type { BmadPackage } from './package.ts';
import { validatePackage } from './pipeline.ts';

/** Every id a package carries: workflows, nodes, edges (by from→to:label), agents. */
function ids(pkg: BmadPackage) {
  return {
    workflows: pkg.workflows.map((w) => w.id),
    nodes: pkg.workflows.map((w) => (JSON.parse(w.graphJson!) as { nodes: Array<{ id: string }> }).nodes.map((n) => n.id)),
    edges: pkg.workflows.map((w) =>
      (JSON.parse(w.graphJson!) as { edges: Array<{ id?: string; from: string; to: string; label: string }> }).edges.map(
        (e) => `${e.id ?? ''}:${e.from}->${e.to}:${e.label}`,
      ),
    ),
    agents: (JSON.parse(pkg.agentsJson!) as { agents: Array<{ id: string }> }).agents.map((a) => a.id),
    steps: pkg.workflows.map((w) => w.steps.map((s) => s.nodeId)),
  };
}

describe('packageFromFiles', () => {
  it('reads the single-workflow layout as workflow "main"', () => {
    const pkg = packageFromFiles(loadExample('hello-branch'));
    expect(pkg.workflows).toHaveLength(1);
    const [main] = pkg.workflows;
    expect(main).toMatchObject({ id: 'main', workflowMdPath: 'workflow.md', graphPath: 'workflow.graph.json' });
    expect(main!.steps.map((s) => [s.nodeId, s.path])).toEqual([
      ['step-01-intake', 'steps/step-01-intake.md'],
      ['decide-02-project-type', 'steps/step-02-decide-project-type.md'],
      ['step-03a-greenfield', 'steps/step-03a-greenfield.md'],
      ['step-03b-brownfield', 'steps/step-03b-brownfield.md'],
      ['end-99', 'steps/end-99.md'],
    ]);
    expect(pkg.defaultWorkflowId).toBe('main');
    expect(pkg.assets.map((a) => a.path)).toEqual(['assets/templates/plan-template.md']);
    expect(pkg.otherFiles).toEqual([]);
  });

  it('reads the multi-workflow layout from bmad.json workflows[]', () => {
    const pkg = packageFromFiles(loadExample('expense-ops'));
    expect(pkg.workflows.map((w) => [w.id, w.displayName, w.tags, w.steps.length])).toEqual([
      ['expense-compliance', 'Expense compliance review', ['finance', 'compliance'], 9],
      ['variance-analysis', 'Monthly variance analysis', ['finance'], 4],
    ]);
    expect(pkg.defaultWorkflowId).toBe('expense-compliance');
  });

  it('keeps unreferenced step files, stray files and missing files visible', () => {
    const files = loadExample('hello-branch');
    files.set('steps/notes.md', '# notes');
    files.set('README.md', '# readme');
    files.delete('workflow.graph.json');
    const pkg = packageFromFiles(files);
    expect(pkg.workflows[0]!.graphJson).toBeNull();
    expect(pkg.workflows[0]!.steps.map((s) => s.path)).toContain('steps/notes.md');
    expect(pkg.otherFiles!.map((f) => f.path)).toEqual(['README.md']);
  });

  it('finds workflows/<id>/ folders when there is no manifest', () => {
    const files = new Map([
      ['workflows/b/workflow.md', 'b'],
      ['workflows/a/workflow.md', 'a'],
      ['workflows/a/steps/s.md', 's'],
    ]);
    const pkg = packageFromFiles(files);
    expect(pkg.manifestJson).toBeNull();
    expect(pkg.workflows.map((w) => [w.id, w.graphPath, w.steps.length])).toEqual([
      ['a', 'workflows/a/workflow.graph.json', 1],
      ['b', 'workflows/b/workflow.graph.json', 0],
    ]);
  });

  it('reads agents from entry.agents', () => {
    const files = loadExample('hello-branch');
    const manifest = JSON.parse(files.get('bmad.json')!);
    manifest.entry.agents = 'config/agents.json';
    files.set('bmad.json', JSON.stringify(manifest));
    files.set('config/agents.json', files.get('agents.json')!);
    files.delete('agents.json');
    const pkg = packageFromFiles(files);
    expect(pkg.agentsPath).toBe('config/agents.json');
    expect(validatePackage(pkg).errors).toEqual([]);
    expect(packageToFiles(pkg).has('agents.json')).toBe(true);
  });
});

describe('packageToFiles', () => {
  it('writes a single-workflow package in the multi-workflow layout, keeping every id', () => {
    const before = packageFromFiles(loadExample('hello-branch'));
    const files = packageToFiles(before);
    expect([...files.keys()]).toEqual([
      'bmad.json',
      'agents.json',
      'workflows/main/workflow.md',
      'workflows/main/workflow.graph.json',
      'workflows/main/steps/step-01-intake.md',
      'workflows/main/steps/step-02-decide-project-type.md',
      'workflows/main/steps/step-03a-greenfield.md',
      'workflows/main/steps/step-03b-brownfield.md',
      'workflows/main/steps/end-99.md',
      'assets/templates/plan-template.md',
    ]);
    const manifest = JSON.parse(files.get('bmad.json')!);
    expect(manifest).toEqual({
      schemaVersion: '1.1',
      name: 'hello-branch',
      version: '0.1.0',
      description: 'Minimal example: micro-file workflow with a decision branch (greenfield vs brownfield).',
      createdAt: '2025-12-23T00:00:00Z',
      entry: {
        workflow: 'workflows/main/workflow.md',
        graph: 'workflows/main/workflow.graph.json',
        agents: 'agents.json',
        assetsDir: 'assets/',
      },
      workflows: [{ id: 'main', workflow: 'workflows/main/workflow.md', graph: 'workflows/main/workflow.graph.json' }],
    });
    const graph = JSON.parse(files.get('workflows/main/workflow.graph.json')!);
    expect(graph.nodes[0].file).toBe('workflows/main/steps/step-01-intake.md');
    expect(files.get('workflows/main/steps/end-99.md')).toBe(loadExample('hello-branch').get('steps/end-99.md'));

    const after = packageFromFiles(files);
    expect(ids(after)).toEqual(ids(before));
    expect(validatePackage(after).issues).toEqual([]);
  });

  it('writes a multi-workflow package back byte for byte', () => {
    const original = loadExample('expense-ops');
    const files = packageToFiles(packageFromFiles(original));
    expect(new Map([...files].sort())).toEqual(new Map([...original].sort()));
  });

  it('is stable: export(import(export(p))) equals export(p)', () => {
    const once = packageToFiles(packageFromFiles(loadExample('hello-branch')));
    expect(packageToFiles(packageFromFiles(once))).toEqual(once);
  });

  it('points entry at the default workflow and drops stray files and integrity', () => {
    const files = loadExample('expense-ops');
    const manifest = JSON.parse(files.get('bmad.json')!);
    manifest.integrity = { sha256: 'a'.repeat(64) };
    files.set('bmad.json', JSON.stringify(manifest));
    files.set('notes.txt', 'stray');
    const pkg = packageFromFiles(files);
    pkg.defaultWorkflowId = 'variance-analysis';
    const out = packageToFiles(pkg);
    expect(out.has('notes.txt')).toBe(false);
    const derived = JSON.parse(out.get('bmad.json')!);
    expect(derived.entry.workflow).toBe('workflows/variance-analysis/workflow.md');
    expect(derived.integrity).toBeUndefined();
  });

  it('derives a usable manifest even from a broken one', () => {
    const pkg = packageFromFiles(loadExample('hello-branch'));
    pkg.manifestJson = '{ broken';
    expect(deriveManifest(pkg)).toMatchObject({ schemaVersion: '1.1', name: 'package', version: '0.1.0' });
  });
});
