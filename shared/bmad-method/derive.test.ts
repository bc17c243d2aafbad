import { describe, expect, it } from 'vitest';
import { loadPackageDir } from '../../test/fixtures/packages.ts';
import { hostileBmadUploads } from '../../test/fixtures/bmad-method/hostile.ts';
import { validatePackage } from '../bmad/pipeline.ts';
import { parseFrontmatter } from '../bmad/frontmatter.ts';
import { readNodePositions } from '../bmad/graph-positions.ts';
import { deriveBmadMethod, isBmadMethodLayout, MAX_BMAD_STEPS_PER_FOLDER } from './derive.ts';
import { exportBmadMethod } from './export.ts';

const fixture = (name: string) => loadPackageDir(new URL(`../../test/fixtures/bmad-method/${name}/`, import.meta.url));
const edgesOf = (d: ReturnType<typeof deriveBmadMethod>, id: string) =>
  d.workflows.find((w) => w.id === id)!.graph.edges.map((e) => `${e.from} -> ${e.to} [${e.label}]${e.isDefault ? ' default' : ''}`);
const typesOf = (d: ReturnType<typeof deriveBmadMethod>, id: string) =>
  Object.fromEntries(d.workflows.find((w) => w.id === id)!.graph.nodes.map((n) => [n.id, n.type]));
const codes = (d: ReturnType<typeof deriveBmadMethod>) => d.issues.map((i) => `${i.severity} ${i.code} ${i.filePath}`);

describe('deriving a .bmad package from the BMAD-METHOD layout', () => {
  it('detects the layout by workflow.md frontmatter, never when bmad.json is there', () => {
    expect(isBmadMethodLayout(fixture('linear'))).toBe(true);
    expect(isBmadMethodLayout(new Map([...fixture('linear'), ['bmad.json', '{}']]))).toBe(false);
    expect(isBmadMethodLayout(new Map([['notes/readme.md', '# hi']]))).toBe(false);
  });

  it('linear: a chain by nextStepFile and [C] Continue menus, the last step an end', () => {
    const d = deriveBmadMethod(fixture('linear'));
    expect(d.workflows.map((w) => [w.id, w.name, w.graph.entryNodeId])).toEqual([['create-brief', 'create-brief', 'step-01-init']]);
    expect(edgesOf(d, 'create-brief')).toEqual([
      'step-01-init -> step-02-vision [[C] Continue]',
      'step-02-vision -> step-03-complete [[C] Continue]',
    ]);
    expect(typesOf(d, 'create-brief')).toEqual({ 'step-01-init': 'step', 'step-02-vision': 'step', 'step-03-complete': 'end' });
    expect(d.assets).toEqual([
      { path: 'assets/create-brief/data/sections.csv', source: 'create-brief/data/sections.csv' },
      { path: 'assets/create-brief/template.md', source: 'create-brief/template.md' },
    ]);
    expect(codes(d)).toEqual(['warning BMAD_AGENT_PLACEHOLDER agents.json']);
    const report = validatePackage(d.pkg);
    expect(report.errors).toEqual([]);
  });

  it('continuation: step-01 hands over to step-01b, which resumes by lastStep', () => {
    const d = deriveBmadMethod(fixture('continuation'));
    expect(edgesOf(d, 'research')).toEqual([
      'step-01-init -> step-01b-continue [the report exists and has stepsCompleted]',
      'step-01-init -> step-02-scope [next] default',
      'step-01b-continue -> step-02-scope [lastStep = 1] default',
      'step-01b-continue -> step-03-complete [lastStep = 2]',
      'step-02-scope -> step-03-complete [[C] Continue]',
    ]);
    expect(typesOf(d, 'research')).toEqual({ 'step-01-init': 'decision', 'step-01b-continue': 'decision', 'step-02-scope': 'step', 'step-03-complete': 'end' });
    expect(validatePackage(d.pkg).errors).toEqual([]);
  });

  it('branches: a four-way menu, nextStepFile the default, all four joining again', () => {
    const d = deriveBmadMethod(fixture('branches'));
    expect(edgesOf(d, 'validate')).toEqual([
      'step-01-discovery -> step-02-route [next]',
      'step-02-route -> step-02a-standard [[A] Standard] default',
      'step-02-route -> step-02b-variant [[B] Variant]',
      'step-02-route -> step-02c-legacy [[C] Legacy]',
      'step-02-route -> step-02d-parity [[D] Parity Check]',
      'step-02a-standard -> step-03-report [next]',
      'step-02b-variant -> step-03-report [next]',
      'step-02c-legacy -> step-03-report [next]',
      'step-02d-parity -> step-03-report [next]',
    ]);
    expect(typesOf(d, 'validate')['step-02-route']).toBe('decision');
    // No stored positions: the canvas lays the graph out itself, top to bottom.
    expect(readNodePositions(d.workflows[0]!.graph).size).toBe(0);
    expect(d.workflows[0]!.graph.metadata).toEqual({ source: 'bmad-method' });
    expect(validatePackage(d.pkg).errors).toEqual([]);
  });

  it('module: two workflows, an agent from its .agent.yaml, a return to an earlier step through a decision', () => {
    const d = deriveBmadMethod(fixture('module'));
    expect(d.workflows.map((w) => w.id)).toEqual(['brief', 'review']);
    expect(edgesOf(d, 'brief')).toEqual(['step-01-start -> step-02-finish [[C] Continue]']);
    expect(edgesOf(d, 'review')).toEqual([
      'step-01-load -> step-02-check [next]',
      'step-02-check -> step-03-decide [next]',
      'step-03-decide -> step-02-check [[R] Recheck]',
      'step-03-decide -> step-04-done [[C] Continue] default',
    ]);
    expect(d.agents).toEqual([{ id: 'analyst', name: 'Mira', source: 'demo/agents/analyst.agent.yaml' }]);
    // The YAML menu is carried into agents.json (the file itself stays an asset).
    expect((JSON.parse(d.pkg.agentsJson!) as { agents: Array<{ menu?: unknown }> }).agents[0]!.menu).toEqual([
      { trigger: 'BR or fuzzy match on brief', description: '[BR] Write a brief', exec: '{project-root}/_bmad/demo/workflows/brief/workflow.md' },
    ]);
    expect(d.origin.workflows).toEqual([
      { id: 'brief', dir: 'demo/workflows/brief/', file: 'workflow.md' },
      { id: 'review', dir: 'demo/workflows/review/', file: 'workflow.md' },
    ]);
    expect(codes(d)).toEqual([]);
    expect(validatePackage(d.pkg).errors).toEqual([]);
  });

  it('returns: a link back to the entry step is kept in the text, not drawn, with a warning; the graph loads', () => {
    const d = deriveBmadMethod(fixture('returns'));
    expect(edgesOf(d, 'ideas')).not.toContain(expect.stringMatching(/-> step-01-setup /u));
    expect(d.issues.filter((i) => i.code === 'BMAD_LINK_TO_ENTRY').map((i) => `${i.filePath}: ${i.message}`)).toEqual([
      expect.stringMatching(/^ideas\/steps\/step-02a-free\.md: Line \d+ links back to the entry step step-01-setup \(\[Back\] choose another method\)/u),
    ]);
    expect(typesOf(d, 'ideas')['step-02a-free']).toBe('step');
    expect(validatePackage(d.pkg).errors).toEqual([]);
  });

  it('returns: labels from numbered menus, quoted choices in headings, the condition line above a link; the continuation is never the default', () => {
    const d = deriveBmadMethod(fixture('returns'));
    expect(edgesOf(d, 'ideas')).toEqual([
      'step-01-setup -> step-01b-continue [the notes file already lists stepsCompleted]',
      'step-01-setup -> step-02a-free [[1] Free Listing] default',
      'step-01-setup -> step-02b-guided [[2] Guided Prompts]',
      'step-01b-continue -> step-03-sort [next]',
      'step-02a-free -> step-03-sort [[C] Continue]',
      'step-02b-guided -> step-03-sort [[C] Continue]',
    ]);
  });

  it('a key written twice in a step frontmatter (as real BMAD steps do): the earlier line is set aside with a warning, links read, export gives the file back', () => {
    const files = new Map(fixture('returns'));
    const path = 'ideas/steps/step-02b-guided.md';
    files.set(path, files.get(path)!.replace("nextStepFile: './step-03-sort.md'\n", "notesFile: '{output}/notes.md'\nnextStepFile: './step-03-sort.md'\nnotesFile: '{output}/notes.md'\n"));
    const d = deriveBmadMethod(files);
    expect(d.issues.filter((i) => i.code === 'BMAD_FRONTMATTER_DUPLICATE_KEY').map((i) => `${i.filePath}: ${i.message}`)).toEqual([
      `${path}: The frontmatter names "notesFile" more than once (line 3); the last one counts, and the earlier line is kept as a comment until export.`,
    ]);
    expect(codes(d)).not.toContain(`warning BMAD_FRONTMATTER_INVALID ${path}`);
    expect(edgesOf(d, 'ideas')).toContain('step-02b-guided -> step-03-sort [[C] Continue]');
    expect(validatePackage(d.pkg).errors).toEqual([]);
    expect(exportBmadMethod(d.pkg, d.origin).files.get(path)).toBe(files.get(path));
  });

  it('adds the .bmad fields to the frontmatter and keeps the original text as the body', () => {
    const files = fixture('linear');
    const d = deriveBmadMethod(files);
    const step = d.pkg.workflows[0]!.steps.find((s) => s.nodeId === 'step-02-vision')!;
    const parsed = parseFrontmatter(step.markdown);
    expect(parsed.ok && parsed.value.data).toMatchObject({ schemaVersion: '1.1', nodeId: 'step-02-vision', type: 'step', origin: 'bmad-method', nextStepFile: './step-03-complete.md' });
    const original = parseFrontmatter(files.get('create-brief/steps/step-02-vision.md')!);
    expect(parsed.ok && original.ok && parsed.value.body).toBe(original.ok && original.value.body);
  });

  it.each(['linear', 'continuation', 'branches', 'module', 'returns'])('%s: exports back to the same files, byte for byte', (name) => {
    const files = fixture(name);
    const d = deriveBmadMethod(files);
    const out = exportBmadMethod(d.pkg, d.origin);
    expect(out.files).toEqual(new Map([...files].sort(([a], [b]) => a.localeCompare(b))));
    expect(out.warnings.map((w) => w.code)).toEqual(['BMAD_EXPORT_NOT_WRITTEN']);
  });
});

describe('hostile BMAD-METHOD uploads', () => {
  const hostile = hostileBmadUploads(fixture('linear'));

  it('a link cycle without a way out: the pipeline refuses it with the loop named', () => {
    const d = deriveBmadMethod(hostile.cycle!.files);
    expect(edgesOf(d, 'create-brief')).toContain('step-03-complete -> step-02-vision [next]');
    const errors = validatePackage(d.pkg).errors.map((e) => `${e.code}: ${e.message}`);
    expect(errors).toEqual([expect.stringMatching(/^GRAPH_CYCLE_MISSING_DECISION: Nodes "step-02-vision", "step-03-complete" form a loop/)]);
  });

  it('a missing step file: a warning on the line that links it, the step becomes the end', () => {
    const d = deriveBmadMethod(hostile.missingStep!.files);
    expect(d.issues.filter((i) => i.code === 'BMAD_LINK_MISSING').map((i) => i.message)).toEqual([
      expect.stringMatching(/links "\.\/step-03-gone\.md", but there is no such step file/),
    ]);
    expect(codes(d)).toContain('warning BMAD_STEP_ORPHAN create-brief/steps/step-03-complete.md');
    expect(typesOf(d, 'create-brief')['step-02-vision']).toBe('end');
  });

  it('an orphan step: kept as a file with a warning, not a second start', () => {
    const d = deriveBmadMethod(hostile.orphan!.files);
    expect(codes(d)).toContain('warning BMAD_STEP_ORPHAN create-brief/steps/step-04-forgotten.md');
    expect(d.assets.map((a) => a.source)).toContain('create-brief/steps/step-04-forgotten.md');
    expect(validatePackage(d.pkg).errors).toEqual([]);
  });

  it('a binary file: left out with a warning', () => {
    const d = deriveBmadMethod(hostile.binary!.files, hostile.binary!.skipped);
    expect(codes(d)).toContain('warning BMAD_FILE_SKIPPED create-brief/data/logo.png');
  });

  it('a link with .. out of the folder: ignored with a warning', () => {
    const d = deriveBmadMethod(hostile.dotDotLink!.files);
    expect(d.issues.filter((i) => i.code === 'BMAD_LINK_OUTSIDE').map((i) => i.message)).toEqual([
      expect.stringMatching(/links "\.\.\/\.\.\/\.\.\/\.\.\/etc\/step-passwd\.md", which leaves the uploaded folder/),
    ]);
    expect(edgesOf(d, 'create-brief')).toHaveLength(2);
  });

  it('2,000 step files: refused with the count and the limit, no workflow derived', () => {
    const d = deriveBmadMethod(hostile.twoThousandSteps!.files);
    expect(d.workflows).toEqual([]);
    expect(d.issues.filter((i) => i.severity === 'error').map((i) => i.message)).toEqual([
      `The folder create-brief/ has 2003 step files; at most ${MAX_BMAD_STEPS_PER_FOLDER} can be imported.`,
    ]);
  });
});
