/**
 * Shapes of real BMAD-METHOD workflows the first importer refused or read wrong, each as a small
 * upload written here: steps inline in workflow.md, `{workflow_path}` variables, installed paths
 * of two workflows with the same step names, several workflow-*.md sharing steps-c/e/v, a looping
 * menu with an Exit, step names outside ASCII, invalid workflow.md frontmatter, a legacy
 * workflow.yaml, `IF E (Edit):` labels. Each imports to a valid package and exports back byte for byte.
 */
import { describe, expect, it } from 'vitest';
import { validatePackage } from '../bmad/pipeline.ts';
import { deriveBmadMethod, isBmadMethodLayout } from './derive.ts';
import { exportBmadMethod } from './export.ts';
import { stripGeneratedFields } from './generated.ts';
import { menuFromYaml } from './agents.ts';

const upload = (files: Record<string, string>) => new Map(Object.entries(files));
const edgesOf = (d: ReturnType<typeof deriveBmadMethod>, id: string) =>
  d.workflows.find((w) => w.id === id)!.graph.edges.map((e) => `${e.from} -> ${e.to} [${e.label}]${e.isDefault ? ' default' : ''}`);
const typesOf = (d: ReturnType<typeof deriveBmadMethod>, id: string) =>
  Object.fromEntries(d.workflows.find((w) => w.id === id)!.graph.nodes.map((n) => [n.id, n.type]));
const codes = (d: ReturnType<typeof deriveBmadMethod>) => d.issues.map((i) => `${i.severity} ${i.code} ${i.filePath}`);
const sorted = (files: Map<string, string>) => new Map([...files].sort(([a], [b]) => a.localeCompare(b)));
/** Import, validate, export: the package is valid and the files come back as uploaded. */
function roundTrip(files: Map<string, string>) {
  const d = deriveBmadMethod(files);
  expect(validatePackage(d.pkg).errors).toEqual([]);
  expect(exportBmadMethod(d.pkg, d.origin).files).toEqual(sorted(files));
  return d;
}

const INLINE_WORKFLOW = `---
name: tidy-notes
description: Tidy a folder of meeting notes.
---

# Tidy Notes

Speak with {user_name} in {communication_language}.

<workflow>
  <critical>Keep every note the person wrote.</critical>

  <step n="1" goal="Collect the notes">
    <action>List every note in {notes_folder}</action>
  </step>

  <step n="2" goal="Group notes by meeting">
    <action>Group the notes by the meeting they belong to</action>
  </step>

  <step n="3" goal="Write the index">
    <action>Write one index line per meeting</action>
    <check if="a meeting has no title">
      <goto step="2">Group again</goto>
    </check>
  </step>
</workflow>
`;

describe('steps written inline in workflow.md (<step n=… goal=…>)', () => {
  it('one step per <step>: node ids step-N, titles from goal, chained in order, a goto as a decision edge, an end', () => {
    const files = upload({ 'tidy-notes/workflow.md': INLINE_WORKFLOW });
    expect(isBmadMethodLayout(files)).toBe(true);
    const d = roundTrip(files);
    const graph = d.workflows[0]!.graph;
    expect(graph.entryNodeId).toBe('step-1');
    expect(graph.nodes.map((n) => [n.id, n.title])).toEqual([
      ['step-1', 'Collect the notes'],
      ['step-2', 'Group notes by meeting'],
      ['step-3', 'Write the index'],
      ['end', 'End'],
    ]);
    expect(edgesOf(d, 'tidy-notes')).toEqual([
      'step-1 -> step-2 [next]',
      'step-2 -> step-3 [next]',
      'step-3 -> step-2 [a meeting has no title]',
      'step-3 -> end [done] default',
    ]);
    expect(typesOf(d, 'tidy-notes')).toMatchObject({ 'step-3': 'decision', end: 'end' });
    expect(codes(d)).toEqual(['warning BMAD_AGENT_PLACEHOLDER agents.json']);
    const step2 = d.pkg.workflows[0]!.steps.find((s) => s.nodeId === 'step-2')!;
    expect(stripGeneratedFields(step2.markdown).text).toBe('<step n="2" goal="Group notes by meeting">\n    <action>Group the notes by the meeting they belong to</action>\n  </step>');
    expect(d.pkg.workflows[0]!.workflowMd).not.toContain('Group the notes by the meeting');
  });

  it('an edit of an inline step in the package is exported into workflow.md at its place', () => {
    const files = upload({ 'tidy-notes/workflow.md': INLINE_WORKFLOW });
    const d = deriveBmadMethod(files);
    const step = d.pkg.workflows[0]!.steps.find((s) => s.nodeId === 'step-1')!;
    step.markdown = step.markdown.replace('List every note', 'List every note and photo');
    const out = exportBmadMethod(d.pkg, d.origin).files;
    expect([...out.keys()]).toEqual(['tidy-notes/workflow.md']);
    expect(out.get('tidy-notes/workflow.md')).toBe(INLINE_WORKFLOW.replace('List every note', 'List every note and photo'));
  });

  it('a workflow.md with neither step files nor <step> blocks becomes one step holding its text, with a warning', () => {
    const files = upload({ 'quick-check/workflow.md': '---\nname: quick-check\ndescription: One pass.\n---\n\n# Quick Check\n\nRead the document and list three risks.\n' });
    const d = roundTrip(files);
    expect(d.workflows[0]!.graph.nodes.map((n) => [n.id, n.type, n.title])).toEqual([['step-1', 'end', 'Quick Check']]);
    expect(codes(d)).toContain('warning BMAD_STEPS_INLINE quick-check/workflow.md');
  });
});

describe('legacy workflow.yaml with instructions.md', () => {
  const yaml = "name: 'weekly-report'\ndescription: 'Write the weekly report.'\ninstalled_path: '{project-root}/_bmad/bmm/workflows/weekly-report'\ninstructions: '{installed_path}/instructions.md'\ntemplate: '{installed_path}/template.md'\n";
  const instructions = '# Weekly Report\n\n<workflow>\n<step n="1" goal="Gather the week">\nAsk what happened.\n</step>\n<step n="2" goal="Write it down">\nFill {template}.\n</step>\n</workflow>\n';

  it('imports like an inline workflow: name and description from workflow.yaml, steps from instructions.md; the yaml stays a file', () => {
    const files = upload({ 'weekly-report/workflow.yaml': yaml, 'weekly-report/instructions.md': instructions, 'weekly-report/template.md': '# Week {{n}}\n' });
    expect(isBmadMethodLayout(files)).toBe(true);
    const d = roundTrip(files);
    expect(d.workflows.map((w) => [w.id, w.name, w.source])).toEqual([['weekly-report', 'weekly-report', 'weekly-report/workflow.yaml']]);
    expect(d.pkg.workflows[0]!.description).toBe('Write the weekly report.');
    expect(edgesOf(d, 'weekly-report')).toEqual(['step-1 -> step-2 [next]']);
    expect(d.assets.map((a) => a.source)).toEqual(['weekly-report/template.md', 'weekly-report/workflow.yaml']);
  });

  it('without its instructions file: refused with an error that says what is missing', () => {
    const d = deriveBmadMethod(upload({ 'weekly-report/workflow.yaml': yaml }));
    expect(d.issues.filter((i) => i.severity === 'error').map((i) => `${i.code}: ${i.message}`)).toEqual([
      'BMAD_NO_STEPS: weekly-report/workflow.yaml is a legacy BMAD workflow (workflow.yaml), but its instructions file (instructions.md) is not in the upload, so it has no steps to import.',
    ]);
  });
});

describe('{variables} in links', () => {
  it('{workflow_path} defined in the step frontmatter, {installed_path} from workflow.md, and steps/… relative to the workflow folder all resolve', () => {
    const files = upload({
      'plan/workflow.md': "---\nname: plan\ndescription: Plan.\ninstalled_path: '{project-root}/_bmad/bmm/workflows/plan'\n---\n\nLoad `{installed_path}/steps/step-01-start.md`.\n",
      'plan/steps/step-01-start.md': "---\nname: step-01\nworkflow_path: '{project-root}/_bmad/bmm/workflows/plan'\nthisStepFile: '{workflow_path}/steps/step-01-start.md'\nnextStepFile: '{workflow_path}/steps/step-02-scope.md'\n---\n\n# Start\n\nThen read fully and follow: {nextStepFile}\n",
      'plan/steps/step-02-scope.md': "---\nname: step-02\nnextStepFile: '{installed_path}/steps/step-03-write.md'\n---\n\n# Scope\n\n[C] Continue\n\nIF C: load {nextStepFile}\n",
      'plan/steps/step-03-write.md': '---\nname: step-03\n---\n\n# Write\n\nWhen done, load steps/step-04-close.md\n',
      'plan/steps/step-04-close.md': '# Close\n',
    });
    const d = roundTrip(files);
    expect(edgesOf(d, 'plan')).toEqual([
      'step-01-start -> step-02-scope [next]',
      'step-02-scope -> step-03-write [[C] Continue]',
      'step-03-write -> step-04-close [next]',
    ]);
    expect(codes(d)).toEqual(['warning BMAD_AGENT_PLACEHOLDER agents.json']);
  });

  it('an installed path is matched by its longest path suffix, never by the file name alone', () => {
    const flow = (name: string) => ({
      [`${name}/workflow.md`]: `---\nname: ${name}\n---\n\nLoad {project-root}/_bmad/bmm/workflows/${name}/steps/step-01-init.md\n`,
      [`${name}/steps/step-01-init.md`]: `# ${name} init\n\nLoad {project-root}/_bmad/bmm/workflows/${name}/steps/step-02-done.md\n\nFor help, see {project-root}/_bmad/core/tasks/step-01-init.md\n`,
      [`${name}/steps/step-02-done.md`]: `# ${name} done\n`,
    });
    const d = roundTrip(upload({ ...flow('alpha'), ...flow('beta') }));
    for (const id of ['alpha', 'beta']) {
      expect(d.workflows.find((w) => w.id === id)!.steps.map((s) => s.source)).toEqual([`${id}/steps/step-01-init.md`, `${id}/steps/step-02-done.md`]);
      expect(edgesOf(d, id)).toEqual(['step-01-init -> step-02-done [next]']);
    }
    expect(d.issues.filter((i) => i.code === 'BMAD_LINK_MISSING').map((i) => i.filePath)).toEqual(['alpha/steps/step-01-init.md', 'beta/steps/step-01-init.md']);
  });
});

describe('several workflow-*.md in one folder with steps-c/, steps-e/, steps-v/', () => {
  const files = upload({
    'prd/workflow-create.md': '---\nname: create-prd\n---\n\nLoad `./steps-c/step-01-init.md`.\n',
    'prd/workflow-edit.md': '---\nname: edit-prd\n---\n\nLoad `./steps-e/step-e-01-load.md`.\n',
    'prd/workflow-validate.md': '---\nname: validate-prd\n---\n\nLoad `./steps-v/step-v-01-check.md`.\n',
    'prd/steps-c/step-01-init.md': "---\nnextStepFile: './step-02-write.md'\n---\n\n# Init\n\nLoad {nextStepFile}\n",
    'prd/steps-c/step-02-write.md': '# Write\n\n[V] Validate now\n[X] Exit\n\n- IF V: load `../steps-v/step-v-01-check.md`\n',
    'prd/steps-e/step-e-01-load.md': '# Load\n\nThen load `./step-e-02-change.md`\n',
    'prd/steps-e/step-e-02-change.md': '# Change\n\nWhen done, load `../steps-v/step-v-01-check.md` to validate.\n',
    'prd/steps-v/step-v-01-check.md': '# Check\n\nLoad `./step-v-02-report.md`\n',
    'prd/steps-v/step-v-02-report.md': '# Report\n',
  });

  it('each workflow gets every step it reaches (shared validation steps too), its own entry, no refusal', () => {
    const d = roundTrip(files);
    expect(d.workflows.map((w) => [w.id, w.graph.entryNodeId])).toEqual([
      ['create', 'step-01-init'],
      ['edit', 'step-e-01-load'],
      ['validate', 'step-v-01-check'],
    ]);
    expect(edgesOf(d, 'create')).toEqual(['step-01-init -> step-02-write [next]', 'step-02-write -> step-v-01-check [[V] Validate now]', 'step-v-01-check -> step-v-02-report [next]']);
    expect(edgesOf(d, 'edit')).toEqual(['step-e-01-load -> step-e-02-change [next]', 'step-e-02-change -> step-v-01-check [next]', 'step-v-01-check -> step-v-02-report [next]']);
    expect(edgesOf(d, 'validate')).toEqual(['step-v-01-check -> step-v-02-report [next]']);
    expect(d.workflows.find((w) => w.id === 'create')!.steps.map((s) => s.file)).toContain('workflows/create/steps-v/step-v-01-check.md');
    expect(codes(d)).toEqual(['warning BMAD_AGENT_PLACEHOLDER agents.json']);
  });
});

describe('a looping menu with an Exit choice', () => {
  it('the looping step becomes a decision, Exit leads to an end node the import writes (and export leaves out)', () => {
    const files = upload({
      'ideas/workflow.md': '---\nname: ideas\n---\n\nLoad `./steps/step-01-topic.md`.\n',
      'ideas/steps/step-01-topic.md': '# Topic\n\nLoad `./step-02-round.md`\n',
      'ideas/steps/step-02-round.md': '# Round\n\nCollect ideas, then load `./step-03-review.md`\n',
      'ideas/steps/step-03-review.md': '# Review\n\n**[C] Continue** - another round\n**[X] Exit** - end the session\n\n- IF C: load `./step-02-round.md`\n- IF X: thank the person and stop\n',
    });
    const d = roundTrip(files);
    expect(edgesOf(d, 'ideas')).toEqual([
      'step-01-topic -> step-02-round [next]',
      'step-02-round -> step-03-review [next]',
      'step-03-review -> step-02-round [[C] Continue] default',
      'step-03-review -> end [[X] Exit]',
    ]);
    expect(typesOf(d, 'ideas')).toMatchObject({ 'step-03-review': 'decision', end: 'end' });
  });
});

describe('step file names outside ASCII', () => {
  it('get an ASCII node id and file name (hash of the path) with a warning, and export under their own names', () => {
    const files = upload({
      'flow/workflow.md': '---\nname: flow\n---\n\n读取 `./steps/步骤-01.md`\n',
      'flow/steps/步骤-01.md': '# 第一步\n\n然后读取 `./步骤-02.md`\n',
      'flow/steps/步骤-02.md': '# 第二步\n',
    });
    const d = roundTrip(files);
    const steps = d.workflows[0]!.steps;
    expect(steps.map((s) => s.source)).toEqual(['flow/steps/步骤-01.md', 'flow/steps/步骤-02.md']);
    for (const s of steps) {
      expect(s.nodeId).toMatch(/^step-[0-9a-f]{8}$/u);
      expect(s.file).toBe(`workflows/flow/steps/${s.nodeId}.md`);
    }
    expect(edgesOf(d, 'flow')).toEqual([`${steps[0]!.nodeId} -> ${steps[1]!.nodeId} [next]`]);
    expect(codes(d)).toEqual(['warning BMAD_STEP_RENAMED flow/steps/步骤-01.md', 'warning BMAD_STEP_RENAMED flow/steps/步骤-02.md', 'warning BMAD_AGENT_PLACEHOLDER agents.json']);
  });
});

describe('invalid YAML in workflow.md frontmatter', () => {
  it('is imported with its name line and a warning naming the file, not dropped; export restores the lines', () => {
    const files = upload({
      'notes/workflow.md': '---\nname: notes\ndescription: Sort notes: fast\n---\n\nLoad `./steps/step-01-a.md`\n',
      'notes/steps/step-01-a.md': '# A\n',
    });
    expect(isBmadMethodLayout(files)).toBe(true);
    const d = roundTrip(files);
    expect(d.workflows.map((w) => w.name)).toEqual(['notes']);
    expect(d.issues.filter((i) => i.code === 'BMAD_FRONTMATTER_INVALID').map((i) => `${i.filePath}: ${i.message}`)).toEqual([
      'notes/workflow.md: The frontmatter of notes/workflow.md is not valid YAML, so its name, description and variables could not be read; the workflow was imported as "notes" and its frontmatter lines are kept as comments until export.',
    ]);
  });
});

describe('menu labels', () => {
  it('`- **IF E (Edit):** load {editStepFile}` labels the edge [E] Edit', () => {
    const files = upload({
      'doc/workflow.md': '---\nname: doc\n---\n\nLoad `./steps/step-01-menu.md`\n',
      'doc/steps/step-01-menu.md': "---\neditStepFile: './step-02-edit.md'\nnextStepFile: './step-03-done.md'\n---\n\n# Menu\n\n- **IF E (Edit):** load {editStepFile}\n- **IF C (Continue):** load {nextStepFile}\n",
      'doc/steps/step-02-edit.md': "---\nnextStepFile: './step-03-done.md'\n---\n\n# Edit\n\nLoad {nextStepFile}\n",
      'doc/steps/step-03-done.md': '# Done\n',
    });
    const d = roundTrip(files);
    expect(edgesOf(d, 'doc')).toEqual([
      'step-01-menu -> step-02-edit [[E] Edit]',
      'step-01-menu -> step-03-done [[C] Continue] default',
      'step-02-edit -> step-03-done [next]',
    ]);
  });
});

describe('compiled agent .md files (_bmad/<module>/agents/*.md)', () => {
  it('become agents like *.agent.yaml: name, title, icon from <agent>, persona fields, menu items; the file stays an asset', () => {
    const agentMd = [
      '---',
      'name: "planner"',
      'description: "Plans the week"',
      '---',
      '',
      'Be this agent until told to stop.',
      '',
      '```xml',
      '<agent id="planner.agent.yaml" name="Ines" title="Week Planner" icon="🗓️">',
      '<activation critical="MANDATORY">',
      '  <step n="1">Greet {user_name}</step>',
      '</activation>',
      '<persona>',
      '  <role>Planner of small teams&apos; weeks</role>',
      '  <identity>Ten years of running stand-ups.</identity>',
      '  <communication_style>Short and warm.</communication_style>',
      '  <principles>- Fewer goals &amp; more focus</principles>',
      '</persona>',
      '<menu>',
      '  <item cmd="WP or fuzzy match on week-plan" workflow="{project-root}/_bmad/team/workflows/week/workflow.md">[WP] Plan the week</item>',
      '</menu>',
      '</agent>',
      '```',
      '',
    ].join('\n');
    const files = upload({
      '_bmad/team/agents/planner.md': agentMd,
      '_bmad/team/workflows/week/workflow.md': '---\nname: week\n---\n\nLoad `./steps/step-01-plan.md`\n',
      '_bmad/team/workflows/week/steps/step-01-plan.md': '# Plan\n',
    });
    const d = roundTrip(files);
    expect(d.agents).toEqual([{ id: 'planner', name: 'Ines', source: '_bmad/team/agents/planner.md' }]);
    const agents = JSON.parse(d.pkg.agentsJson!) as { agents: Array<Record<string, any>> };
    expect(agents.agents[0]).toEqual({
      id: 'planner',
      metadata: { name: 'Ines', title: 'Week Planner', icon: '🗓️', description: 'Plans the week', sourceId: '_bmad/team/agents/planner.md' },
      persona: { role: "Planner of small teams' weeks", identity: 'Ten years of running stand-ups.', communication_style: 'Short and warm.', principles: '- Fewer goals & more focus' },
      menu: [{ trigger: 'WP or fuzzy match on week-plan', description: '[WP] Plan the week', workflow: '{project-root}/_bmad/team/workflows/week/workflow.md' }],
    });
    expect(codes(d)).toEqual([]);
    expect(d.assets.map((a) => a.source)).toEqual(['_bmad/team/agents/planner.md']);
  });
});

describe('a router workflow.md (IF Create Mode: … IF Edit Mode: …)', () => {
  it('gets an entry decision with one edge per route, every route’s steps reachable; export leaves the router out', () => {
    const files = upload({
      'brief/workflow.md': [
        '---',
        'name: brief',
        "nextStep: './steps-c/step-01-start.md'",
        "editWorkflow: './steps-e/step-e-01-open.md'",
        '---',
        '',
        '# Brief (two modes)',
        '',
        '**IF Create Mode:**',
        'Load and follow `{nextStep}`',
        '',
        '**IF Edit Mode:**',
        'Load and follow `{editWorkflow}`',
        '',
      ].join('\n'),
      'brief/steps-c/step-01-start.md': '# Start\n\nThen load `./step-02-write.md`\n',
      'brief/steps-c/step-02-write.md': '# Write\n',
      'brief/steps-e/step-e-01-open.md': '# Open\n\nThen load `./step-e-02-save.md`\n',
      'brief/steps-e/step-e-02-save.md': '# Save\n',
    });
    const d = roundTrip(files);
    expect(d.workflows[0]!.graph.entryNodeId).toBe('route');
    expect(typesOf(d, 'brief')).toMatchObject({ route: 'decision', 'step-02-write': 'end', 'step-e-02-save': 'end' });
    expect(edgesOf(d, 'brief')).toEqual([
      'step-01-start -> step-02-write [next]',
      'step-e-01-open -> step-e-02-save [next]',
      'route -> step-01-start [Create Mode] default',
      'route -> step-e-01-open [Edit Mode]',
    ]);
  });
});

describe('a *.agent.yaml menu', () => {
  it('keeps each item with a description, its text fields and flags, and leaves out what agents.json cannot hold', () => {
    expect(
      menuFromYaml([
        { trigger: 'CP or fuzzy match on create-prd', exec: '{project-root}/x.md', description: '[CP] Create PRD', 'ide-only': true, extra: { nested: 1 } },
        { trigger: 'XX', description: '   ' },
        'not an item',
        { workflow: 'w.yaml', description: '[W] Run', 'web-only': 'yes' },
      ]),
    ).toEqual([
      { trigger: 'CP or fuzzy match on create-prd', exec: '{project-root}/x.md', description: '[CP] Create PRD', 'ide-only': true },
      { workflow: 'w.yaml', description: '[W] Run' },
    ]);
    expect(menuFromYaml(undefined)).toEqual([]);
  });
});

describe('menu labels', () => {
  // Party mode (BMAD-METHOD core): its rules mention "[E] exit option" long before the menu line.
  it('names an edge after the menu line that opens with its key, not a sentence that mentions it first', () => {
    const d = roundTrip(
      upload({
        'party/workflow.md': '---\nname: party\ndescription: Talk with several agents.\n---\n\n# Party\n\nLoad `./steps/step-01-talk.md`.\n',
        'party/steps/step-01-talk.md': [
          '# Talk',
          '',
          '## RULES',
          '',
          '- ⚠️ Present [E] exit option after each agent response round',
          '',
          '## MENU',
          '',
          '`[E] Exit Party Mode - End the collaborative session`',
          '',
          "#### If 'E' (Exit Party Mode):",
          '',
          '- Read fully and follow: `./step-02-exit.md`',
          '',
        ].join('\n'),
        'party/steps/step-02-exit.md': '# Exit\n\nSay goodbye.\n',
      }),
    );
    expect(edgesOf(d, 'party')).toEqual(['step-01-talk -> step-02-exit [[E] Exit Party Mode]']);
  });
});
