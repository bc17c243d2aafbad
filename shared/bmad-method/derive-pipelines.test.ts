/**
 * Shapes of later BMAD-METHOD workflow folders that the import refused or misread: a `workflow.md`
 * with no frontmatter (a `# Title`, a `<config>` block and `<step name="…">` blocks), alone or
 * beside a `workflow.yaml` that names no instructions file, and glob paths (a `*` or `**` before
 * the path) read as links that leave the upload. Each fixture is written here; each imports
 * valid and exports back byte for byte.
 */
import { describe, expect, it } from 'vitest';
import { validatePackage } from '../bmad/pipeline.ts';
import { deriveBmadMethod, isBmadMethodLayout } from './derive.ts';
import { exportBmadMethod } from './export.ts';

const upload = (files: Record<string, string>) => new Map(Object.entries(files));
const codes = (d: ReturnType<typeof deriveBmadMethod>) => d.issues.map((i) => `${i.severity} ${i.code} ${i.filePath}`);
const sorted = (files: Map<string, string>) => new Map([...files].sort(([a], [b]) => a.localeCompare(b)));
function roundTrip(files: Map<string, string>) {
  const d = deriveBmadMethod(files);
  expect(d.issues.filter((i) => i.severity === 'error')).toEqual([]);
  expect(validatePackage(d.pkg).errors).toEqual([]);
  expect(exportBmadMethod(d.pkg, d.origin).files).toEqual(sorted(files));
  return d;
}

/** A pipeline written without frontmatter: a title, a config block, named steps. */
const PIPELINE_MD = `# Tidy Garden Pipeline v2

<purpose>
Weed, water and log a garden bed, one helper per phase.
</purpose>

<config>
name: tidy-garden
phases: 3
</config>

<process>

<step name="survey_bed" priority="first">
**Look at the bed**

List the weeds you can see.
</step>

<step name="pull_weeds">
Pull every weed on the list.
</step>

<step name="water" if="soil is dry">
Water until the soil is dark.
</step>

</process>

<success_criteria>
- [ ] No weeds left
</success_criteria>
`;

const PIPELINE_YAML = `name: tidy-garden
description: "Weed, water and log one garden bed"
version: "2.0.0"

installed_path: "{project-root}/_bmad/garden/workflows/tidy-garden"
helpers_path: "{installed_path}/helpers"

standalone: true
`;

describe('a workflow.md with no frontmatter', () => {
  it('beside a workflow.yaml that names no instructions file: the workflow.md is its text, each <step name=…> a step titled by its name', () => {
    const files = upload({
      'tidy-garden/workflow.md': PIPELINE_MD,
      'tidy-garden/workflow.yaml': PIPELINE_YAML,
      'tidy-garden/helpers/weeder.md': '# Weeder\n\nYou pull weeds and nothing else.\n',
    });
    expect(isBmadMethodLayout(files)).toBe(true);
    const d = roundTrip(files);
    expect(d.workflows.map((w) => [w.id, w.name, w.source])).toEqual([['tidy-garden', 'tidy-garden', 'tidy-garden/workflow.yaml']]);
    expect(d.pkg.workflows[0]!.description).toBe('Weed, water and log one garden bed');
    expect(d.workflows[0]!.graph.nodes.map((n) => [n.id, n.type, n.title])).toEqual([
      ['step-1', 'step', 'survey_bed'],
      ['step-2', 'step', 'pull_weeds'],
      ['step-3', 'end', 'water'],
    ]);
    expect(d.assets.map((a) => a.source)).toEqual(['tidy-garden/helpers/weeder.md', 'tidy-garden/workflow.yaml']);
    expect(codes(d)).toEqual(['warning BMAD_AGENT_PLACEHOLDER agents.json']);
  });

  it('alone: still a workflow, named after its folder, with a warning saying so (never "nothing to import")', () => {
    const files = upload({ 'tidy-garden/workflow.md': PIPELINE_MD });
    expect(isBmadMethodLayout(files)).toBe(true);
    const d = roundTrip(files);
    expect(d.workflows.map((w) => [w.id, w.name])).toEqual([['tidy-garden', 'tidy-garden']]);
    expect(d.workflows[0]!.graph.nodes).toHaveLength(3);
    expect(codes(d)).toEqual(['warning BMAD_WORKFLOW_UNNAMED tidy-garden/workflow.md', 'warning BMAD_AGENT_PLACEHOLDER agents.json']);
    expect(d.issues[0]!.message).toBe('tidy-garden/workflow.md has no frontmatter name (and no workflow.yaml beside it names the workflow), so the workflow was named "tidy-garden" after its folder.');
  });

  it('a workflow.md with a .bmad frontmatter (schemaVersion, no name) is not taken for one', () => {
    expect(isBmadMethodLayout(upload({ 'workflows/x/workflow.md': '---\nschemaVersion: "1.1"\n---\n\n# X\n' }))).toBe(false);
    expect(isBmadMethodLayout(upload({ 'notes/readme.md': '# Notes\n' }))).toBe(false);
  });
});

describe('a legacy workflow.yaml without its instructions file', () => {
  it('is refused with the file name it looked for, its {variables} resolved', () => {
    const yaml = 'name: ship-it\ninstalled_path: "{project-root}/_bmad/x/workflows/ship-it"\ninstructions: "{installed_path}/workflow.md"\n';
    const d = deriveBmadMethod(upload({ 'ship-it/workflow.yaml': yaml }));
    expect(d.issues.filter((i) => i.severity === 'error').map((i) => i.message)).toEqual([
      'ship-it/workflow.yaml is a legacy BMAD workflow (workflow.yaml), but its instructions file (workflow.md) is not in the upload, so it has no steps to import.',
    ]);
  });
});

describe('glob paths in step text', () => {
  it('`{out}/*plan*/index.md` and `**/house-rules.md` are patterns, not links that leave the upload', () => {
    const files = upload({
      'garden-check/workflow.md': '---\nname: garden-check\ndescription: Check a garden plan.\n---\n\nRead fully and follow: `./steps/step-01-find.md`\n',
      'garden-check/steps/step-01-find.md':
        "---\nname: 'step-01-find'\nnextStepFile: './step-02-report.md'\n---\n\n# Find the plan\n\n- Whole: `{planning_artifacts}/*plan*.md`\n- Split: `{planning_artifacts}/*plan*/index.md`\n- Rules: `**/house-rules.md`\n\nThen load {nextStepFile}.\n",
      'garden-check/steps/step-02-report.md': "---\nname: 'step-02-report'\n---\n\n# Report\n\nSay what the plan lacks.\n",
    });
    const d = roundTrip(files);
    expect(d.workflows[0]!.graph.edges.map((e) => `${e.from} -> ${e.to}`)).toEqual(['step-01-find -> step-02-report']);
    expect(codes(d)).toEqual(['warning BMAD_AGENT_PLACEHOLDER agents.json']);
  });
});

describe('a workflow file that names its first step as a sibling', () => {
  it('`./step-01-gather.md` in workflow.md finds the one step of that name in steps/: the entry, no guessed-entry warning', () => {
    const files = upload({
      'plant-check/workflow.md': '---\nname: plant-check\ndescription: Check the plants.\n---\n\nRead fully and follow: `./step-01-gather.md` to begin.\n',
      'plant-check/steps/step-00-notes.md': "---\nname: 'step-00-notes'\n---\n\n# Notes\n\nNothing to do.\n",
      'plant-check/steps/step-01-gather.md': "---\nname: 'step-01-gather'\nnextStepFile: './step-02-judge.md'\n---\n\n# Gather\n\nList the plants, then load {nextStepFile}.\n",
      'plant-check/steps/step-02-judge.md': "---\nname: 'step-02-judge'\n---\n\n# Judge\n\nSay which plants need water.\n",
    });
    const d = roundTrip(files);
    const graph = d.workflows[0]!.graph;
    expect(graph.entryNodeId).toBe('step-01-gather');
    expect(graph.edges.map((e) => `${e.from} -> ${e.to}`)).toEqual(['step-01-gather -> step-02-judge']);
    expect(codes(d)).not.toContain('warning BMAD_ENTRY_GUESSED plant-check/workflow.md');
  });
});

describe('export of an unedited legacy workflow (workflow.yaml + instructions.md with <step n=…> blocks)', () => {
  const files = upload({
    'done/workflow.yaml': "name: done\ndescription: Mark a story done.\ninstructions: '{installed_path}/instructions.md'\n",
    'done/instructions.md': '# Done\n\n<workflow>\n<step n="1" goal="Find the story">\nFind it.\n</step>\n<step n="2" goal="Mark it">\nMark it.\n</step>\n<step n="3" goal="Report">\nSay so.\n</step>\n</workflow>\n',
  });

  it('warns of no edge: the chain in the order written is the one the import drew, read the same way again', () => {
    const d = roundTrip(files);
    expect(d.workflows[0]!.graph.edges.map((e) => `${e.from} -> ${e.to}`)).toEqual(['step-1 -> step-2', 'step-2 -> step-3']);
    expect(exportBmadMethod(d.pkg, d.origin).warnings.map((w) => w.code)).not.toContain('BMAD_EXPORT_UNLINKED_EDGE');
  });

  it('still warns of an edge drawn later that the text does not give', () => {
    const d = deriveBmadMethod(files);
    const workflow = d.pkg.workflows[0]!;
    const graph = JSON.parse(workflow.graphJson!) as { edges: Array<Record<string, unknown>> };
    graph.edges.push({ id: 'step-3->step-1', from: 'step-3', to: 'step-1', label: 'again' });
    workflow.graphJson = JSON.stringify(graph);
    const unlinked = exportBmadMethod(d.pkg, d.origin).warnings.filter((w) => w.code === 'BMAD_EXPORT_UNLINKED_EDGE');
    expect(unlinked.map((w) => w.message)).toEqual(['The edge step-3 → step-1 is in the graph, but done/instructions.md#step-3 does not link done/instructions.md#step-1.']);
  });
});
