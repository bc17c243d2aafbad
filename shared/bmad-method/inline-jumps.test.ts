/**
 * Inline-step workflows as real BMAD-METHOD writes them: jumps written in words inside
 * `<check if>` ("Jump to Step 20", "Continue to Step 1"), steps that exit or return, and `<step>`
 * examples inside fenced code. Fixture: test/fixtures/bmad-method/inline-jumps (the public
 * sprint-status workflow, trimmed).
 */
import { describe, expect, it } from 'vitest';
import { loadPackageDir } from '../../test/fixtures/packages.ts';
import { validatePackage } from '../bmad/pipeline.ts';
import { deriveBmadMethod } from './derive.ts';
import { exportBmadMethod } from './export.ts';
import { findInlineSteps } from './inline-steps.ts';

const fixture = () => loadPackageDir(new URL('../../test/fixtures/bmad-method/inline-jumps/', import.meta.url));
const sorted = (files: ReadonlyMap<string, string>) => new Map([...files].sort(([a], [b]) => a.localeCompare(b)));
const edgesOf = (d: ReturnType<typeof deriveBmadMethod>) => d.workflows[0]!.graph.edges.map((e) => `${e.from} -> ${e.to} [${e.label}]${e.isDefault ? ' default' : ''}`);
const codes = (d: ReturnType<typeof deriveBmadMethod>) => d.issues.map((i) => `${i.code} ${i.filePath}`);

function roundTrip(files: ReadonlyMap<string, string>) {
  const d = deriveBmadMethod(files);
  expect(validatePackage(d.pkg).errors).toEqual([]);
  expect(exportBmadMethod(d.pkg, d.origin).files).toEqual(sorted(files));
  return d;
}

describe('jumps written in words (sprint-status)', () => {
  it('step 0 branches to 1, 20 and 30 by mode; a step that exits or returns is not chained into the next one', () => {
    const d = roundTrip(fixture());
    expect(d.workflows[0]!.graph.entryNodeId).toBe('step-0');
    expect(edgesOf(d)).toEqual([
      'step-0 -> step-1 [mode == interactive] default',
      'step-0 -> step-20 [mode == data]',
      'step-0 -> step-30 [mode == validate]',
      'step-1 -> step-2 [next]',
      'step-2 -> step-5 [next]',
    ]);
    const types = Object.fromEntries(d.workflows[0]!.graph.nodes.map((n) => [n.id, n.type]));
    expect(types).toMatchObject({ 'step-0': 'decision', 'step-5': 'end', 'step-20': 'end', 'step-30': 'end' });
  });

  it('reads each written form with its condition, and an unconditional one as the way on', () => {
    const [step] = findInlineSteps(
      '<step n="1" goal="Route">\n  <check if="a">\n    <action>Go to Step 3</action>\n  </check>\n  <check if="b"><action>Jump to step 4</action></check>\n  <action>Continue to Step 2</action>\n</step>\n',
    );
    expect(step!.gotos.map((g) => [g.step, g.label, g.conditional])).toEqual([
      ['3', 'a', true],
      ['4', 'b', true],
      ['2', 'goto step 2', false],
    ]);
  });

  it('an unconditional jump elsewhere replaces the chain to the next step; a step nothing else reaches keeps its chain', () => {
    const step = (n: number, body: string) => `<step n="${n}" goal="Step ${n}">\n  ${body}\n</step>\n`;
    const text = (three: string) => `---\nname: skip\n---\n\n<workflow>\n${step(1, '<action>Jump to Step 3</action>')}${step(2, '<action>Fix it</action>')}${step(3, three)}</workflow>\n`;
    const reached = roundTrip(new Map([['skip/workflow.md', text('<check if="fix needed"><goto step="2"/></check>')]]));
    expect(edgesOf(reached)).toEqual(['step-1 -> step-3 [goto step 3]', 'step-2 -> step-3 [next]', 'step-3 -> step-2 [fix needed]', 'step-3 -> end [done] default']);
    // Step 2 reached by nothing but the order it is written in: still chained (never a second start).
    const unreached = roundTrip(new Map([['skip/workflow.md', text('<action>Done</action>')]]));
    expect(edgesOf(unreached)).toEqual(['step-1 -> step-2 [next] default', 'step-1 -> step-3 [goto step 3]', 'step-2 -> step-3 [next]']);
  });
});

describe('<step> examples in fenced code', () => {
  const FENCED = [
    '---',
    'name: fence-demo',
    'description: Explains the inline step format',
    '---',
    '',
    '# Writing inline workflows',
    '',
    '```xml',
    '<step n="1" goal="Example goal">',
    '  <action>Example action</action>',
    '</step>',
    '```',
    '',
    '<workflow>',
    '<step n="1" goal="Gather">',
    '  <action>Ask for input</action>',
    '  ~~~',
    '  <goto step="3">an example, not a jump</goto>',
    '  ~~~',
    '</step>',
    '<step n="2" goal="Write">',
    '  <action>Write it</action>',
    '</step>',
    '<step n="3" goal="Check">',
    '  <action>Check it</action>',
    '</step>',
    '</workflow>',
    '',
  ].join('\n');

  it('are not steps, and a goto in one is not an edge: the real step 1 is the entry, no false BMAD_LINK_TO_ENTRY', () => {
    const d = roundTrip(new Map([['fence-demo/workflow.md', FENCED]]));
    const graph = d.workflows[0]!.graph;
    expect(graph.entryNodeId).toBe('step-1');
    expect(graph.nodes.map((n) => [n.id, n.title])).toEqual([
      ['step-1', 'Gather'],
      ['step-2', 'Write'],
      ['step-3', 'Check'],
    ]);
    expect(edgesOf(d)).toEqual(['step-1 -> step-2 [next]', 'step-2 -> step-3 [next]']);
    expect(codes(d)).not.toContainEqual(expect.stringMatching(/^BMAD_LINK_TO_ENTRY/u));
    // The example stays in the workflow text, as written.
    expect(d.pkg.workflows[0]!.workflowMd).toContain('<step n="1" goal="Example goal">');
  });
});

describe('checks of imported inline steps', () => {
  it('a goal attribute is the goal and the text the step holds its instructions: no STEP_MISSING_* warnings', () => {
    const d = deriveBmadMethod(fixture());
    const report = validatePackage(d.pkg);
    expect(report.warnings.map((w) => w.code).filter((c) => c.startsWith('STEP_MISSING'))).toEqual([]);
  });

  it('a step without a goal attribute, or holding nothing, still gets its warning', () => {
    const text = '---\nname: bare\n---\n\n<workflow>\n<step n="1">\n  <action>Do it</action>\n</step>\n<step n="2" goal="Finish">\n</step>\n</workflow>\n';
    const report = validatePackage(deriveBmadMethod(new Map([['bare/workflow.md', text]])).pkg);
    expect(report.warnings.filter((w) => w.code.startsWith('STEP_MISSING')).map((w) => `${w.code} ${w.filePath}`)).toEqual([
      'STEP_MISSING_GOAL workflows/bare/steps/step-1.md',
      'STEP_MISSING_INSTRUCTIONS workflows/bare/steps/step-2.md',
    ]);
  });
});
