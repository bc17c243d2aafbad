import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../test/fixtures/packages.ts';
import { deriveManifest, layoutMoves, manifestText, packageFromFiles, packageToFiles, packageToFilesWithSources, toMultiWorkflowLayout } from './package-files.ts';
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
    const pkg = packageFromFiles(loadFixture('branching'));
    expect(pkg.workflows).toHaveLength(1);
    const [main] = pkg.workflows;
    expect(main).toMatchObject({ id: 'main', workflowMdPath: 'workflow.md', graphPath: 'workflow.graph.json' });
    expect(main!.steps.map((s) => [s.nodeId, s.path])).toEqual([
      ['collect-background', 'steps/01-collect-background.md'],
      ['choose-track', 'steps/02-decide-track.md'],
      ['beginner-plan', 'steps/03a-beginner-plan.md'],
      ['advanced-plan', 'steps/03b-advanced-plan.md'],
      ['join-plans', 'steps/04-join-plans.md'],
      ['finish', 'steps/99-finish.md'],
    ]);
    expect(pkg.defaultWorkflowId).toBe('main');
    expect(pkg.assets.map((a) => a.path)).toEqual(['assets/templates/study-plan.md']);
    expect(pkg.otherFiles).toEqual([]);
  });

  it('reads the multi-workflow layout from bmad.json workflows[]', () => {
    const pkg = packageFromFiles(loadFixture('two-workflows'));
    expect(pkg.workflows.map((w) => [w.id, w.displayName, w.tags, w.steps.length])).toEqual([
      ['ticket-triage', 'Support ticket triage', ['support', 'triage'], 9],
      ['weekly-report', 'Weekly support report', ['support'], 4],
    ]);
    expect(pkg.defaultWorkflowId).toBe('ticket-triage');
  });

  it('keeps unreferenced step files, stray files and missing files visible', () => {
    const files = loadFixture('branching');
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
    const files = loadFixture('branching');
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
    const before = packageFromFiles(loadFixture('branching'));
    const files = packageToFiles(before);
    expect([...files.keys()]).toEqual([
      'bmad.json',
      'agents.json',
      'workflows/main/workflow.md',
      'workflows/main/workflow.graph.json',
      'workflows/main/steps/01-collect-background.md',
      'workflows/main/steps/02-decide-track.md',
      'workflows/main/steps/03a-beginner-plan.md',
      'workflows/main/steps/03b-advanced-plan.md',
      'workflows/main/steps/04-join-plans.md',
      'workflows/main/steps/99-finish.md',
      'assets/templates/study-plan.md',
    ]);
    const manifest = JSON.parse(files.get('bmad.json')!);
    expect(manifest).toEqual({
      schemaVersion: '1.1',
      name: 'course-placement',
      version: '0.3.0',
      description: 'Places a new student on the beginner or the advanced track of an evening language course.',
      createdAt: '2026-01-12T08:00:00Z',
      entry: {
        workflow: 'workflows/main/workflow.md',
        graph: 'workflows/main/workflow.graph.json',
        agents: 'agents.json',
        assetsDir: 'assets/',
      },
      workflows: [{ id: 'main', workflow: 'workflows/main/workflow.md', graph: 'workflows/main/workflow.graph.json' }],
    });
    const graph = JSON.parse(files.get('workflows/main/workflow.graph.json')!);
    expect(graph.nodes[0].file).toBe('workflows/main/steps/01-collect-background.md');
    expect(files.get('workflows/main/steps/99-finish.md')).toBe(loadFixture('branching').get('steps/99-finish.md'));

    const after = packageFromFiles(files);
    expect(ids(after)).toEqual(ids(before));
    expect(validatePackage(after).issues).toEqual([]);
  });

  it('writes a multi-workflow package back byte for byte', () => {
    const original = loadFixture('two-workflows');
    const files = packageToFiles(packageFromFiles(original));
    expect(new Map([...files].sort())).toEqual(new Map([...original].sort()));
  });

  it('is stable: export(import(export(p))) equals export(p)', () => {
    const once = packageToFiles(packageFromFiles(loadFixture('branching')));
    expect(packageToFiles(packageFromFiles(once))).toEqual(once);
  });

  it('points entry at the default workflow and drops stray files and integrity', () => {
    const files = loadFixture('two-workflows');
    const manifest = JSON.parse(files.get('bmad.json')!);
    manifest.integrity = { sha256: 'a'.repeat(64) };
    files.set('bmad.json', JSON.stringify(manifest));
    files.set('notes.txt', 'stray');
    const pkg = packageFromFiles(files);
    pkg.defaultWorkflowId = 'weekly-report';
    const out = packageToFiles(pkg);
    expect(out.has('notes.txt')).toBe(false);
    const derived = JSON.parse(out.get('bmad.json')!);
    expect(derived.entry.workflow).toBe('workflows/weekly-report/workflow.md');
    expect(derived.integrity).toBeUndefined();
  });

  it('derives a usable manifest even from a broken one', () => {
    const pkg = packageFromFiles(loadFixture('branching'));
    pkg.manifestJson = '{ broken';
    expect(deriveManifest(pkg)).toMatchObject({ schemaVersion: '1.1', name: 'package', version: '0.1.0' });
  });
});

describe('a bmad.json nested deeper than any package needs', () => {
  it('is laid out and exported without walking it (no stack overflow), and the pipeline refuses it naming the file', () => {
    const files = loadFixture('two-workflows');
    const manifest = files.get('bmad.json')!;
    const deep = manifest.replace('{', `{"x":${'{"a":'.repeat(40000)}1${'}'.repeat(40000)},`);
    files.set('bmad.json', deep);
    const pkg = packageFromFiles(files);
    expect(() => packageToFiles(pkg)).not.toThrow();
    const report = validatePackage(pkg);
    expect(report.errors).toEqual([expect.objectContaining({ code: 'JSON_PARSE_ERROR', filePath: 'bmad.json', message: expect.stringContaining('levels deep') })]);
  });
});

describe('where each file goes', () => {
  it('tells the stored path each written file came from, through a change of layout and a portable rename', () => {
    const files = loadFixture('branching');
    // A step file named after an id with ":" is written under a name Windows can create.
    const graph = files.get('workflow.graph.json')!.split('steps/99-finish.md').join('steps/review:final.md');
    const single = new Map([...files].filter(([p]) => p !== 'steps/99-finish.md'));
    single.set('workflow.graph.json', graph).set('steps/review:final.md', files.get('steps/99-finish.md')!);
    const pkg = packageFromFiles(single);
    const { files: written, sources } = packageToFilesWithSources(pkg);
    expect(sources.get('workflows/main/steps/review_final.md')).toBe('steps/review:final.md');
    expect(sources.get('workflows/main/workflow.md')).toBe('workflow.md');
    expect(sources.get('workflows/main/steps/01-collect-background.md')).toBe('steps/01-collect-background.md');
    expect(sources.get('assets/templates/study-plan.md')).toBe('assets/templates/study-plan.md');
    expect(sources.get('bmad.json')).toBe('bmad.json');
    expect([...sources.keys()].sort()).toEqual([...written.keys()].sort());
    expect(written.get('workflows/main/steps/review_final.md')).toBe(files.get('steps/99-finish.md'));

    const moves = layoutMoves(pkg, toMultiWorkflowLayout(pkg));
    expect(moves.get('steps/review:final.md')).toBe('workflows/main/steps/review:final.md');
    expect(moves.get('workflow.graph.json')).toBe('workflows/main/workflow.graph.json');
  });
});

describe('manifestText', () => {
  const original = loadFixture('two-workflows').get('bmad.json')!;
  const manifest = JSON.parse(original) as Record<string, unknown>;
  /** The same manifest as an author may write it: 4-space indent, keys in another order, CRLF. */
  const handMade = JSON.stringify(Object.fromEntries(Object.entries(manifest).reverse()), null, 4).replaceAll('\n', '\r\n');

  it("keeps the author's bytes while the manifest says the same", () => {
    expect(manifestText(deriveManifest(packageFromFiles(new Map([...loadFixture('two-workflows'), ['bmad.json', handMade]]))), handMade)).toBe(handMade);
  });

  it('rewrites a changed manifest in two spaces, keeping its line ending', () => {
    const changed = deriveManifest({ ...packageFromFiles(loadFixture('two-workflows')), manifestJson: handMade.replace('"2.4.0"', '"2.5.0"') });
    const text = manifestText(changed, handMade);
    expect(JSON.parse(text)).toEqual(changed);
    expect(text).toBe(`${JSON.stringify(changed, null, 2)}\n`.replaceAll('\n', '\r\n'));
    expect(manifestText(changed, null)).toBe(`${JSON.stringify(changed, null, 2)}\n`);
  });
});
