import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../../test/fixtures/packages.ts';
import { withNodePositions } from '../../bmad/graph-positions.ts';
import { legacyImportPositions } from '../../bmad-method/positions.ts';
import { diffAgents, diffFrontmatter, diffGraph, diffMarkdown, semanticDiff } from './index.ts';

const branching = loadFixture('branching');
const triage = loadFixture('two-workflows');
const GRAPH = branching.get('workflow.graph.json')!;
const AGENTS = branching.get('agents.json')!;
const STEP = branching.get('steps/02-decide-track.md')!;
const WORKFLOW = branching.get('workflow.md')!;

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
const graphOf = (text: string) => JSON.parse(text) as { nodes: any[]; edges: any[]; [k: string]: unknown };

describe('graph diff on the branching package', () => {
  it('reads an added node and its edge as added, and nothing else', () => {
    const g = graphOf(GRAPH);
    g.nodes.push({ id: 'review-plan', type: 'step', file: 'steps/05-review.md', title: 'Review the plan' });
    g.edges.push({ from: 'join-plans', to: 'review-plan', label: 'review' });
    const diff = diffGraph(GRAPH, json(g));
    if (diff.kind !== 'graph') throw new Error(diff.error);
    expect(diff.nodes.filter((n) => n.status !== 'unchanged').map((n) => [n.id, n.status])).toEqual([['review-plan', 'added']]);
    expect(diff.edges.filter((e) => e.status !== 'unchanged').map((e) => [e.key, e.status])).toEqual([['join-plans->review-plan', 'added']]);
    expect(diff.nodes).toHaveLength(7);
    expect(diff.changed).toBe(true);
  });

  it('reads a removed edge as removed, keeping it in the union', () => {
    const g = graphOf(GRAPH);
    g.edges = g.edges.filter((e) => !(e.from === 'advanced-plan' && e.to === 'join-plans'));
    const diff = diffGraph(GRAPH, json(g));
    if (diff.kind !== 'graph') throw new Error(diff.error);
    const removed = diff.edges.filter((e) => e.status === 'removed');
    expect(removed.map((e) => e.key)).toEqual(['advanced-plan->join-plans']);
    expect(removed[0]!.edge.label).toBe('next');
    expect(diff.nodes.every((n) => n.status === 'unchanged')).toBe(true);
  });

  it('reads a relabelled edge and a new condition as one changed edge with its fields', () => {
    const g = graphOf(GRAPH);
    const edge = g.edges.find((e) => e.from === 'choose-track' && e.to === 'advanced-plan');
    edge.label = 'expert';
    edge.conditionText = "variables.level == 'expert'";
    delete edge.isDefault;
    const diff = diffGraph(GRAPH, json(g));
    if (diff.kind !== 'graph') throw new Error(diff.error);
    const changed = diff.edges.filter((e) => e.status !== 'unchanged');
    expect(changed).toHaveLength(1);
    expect(changed[0]!.fields.map((f) => [f.path, f.kind])).toEqual([
      ['label', 'changed'],
      ['isDefault', 'removed'],
      ['conditionText', 'changed'],
    ]);
  });

  it('reads a retitled node as changed (title), its type and step file too', () => {
    const g = graphOf(GRAPH);
    const node = g.nodes.find((n) => n.id === 'finish');
    node.title = 'Done';
    node.file = 'steps/100-done.md';
    const diff = diffGraph(GRAPH, json(g));
    if (diff.kind !== 'graph') throw new Error(diff.error);
    const finish = diff.nodes.find((n) => n.id === 'finish')!;
    expect(finish.status).toBe('changed');
    expect(finish.fields).toEqual([
      { path: 'file', kind: 'changed', before: 'steps/99-finish.md', after: 'steps/100-done.md' },
      { path: 'title', kind: 'changed', before: 'Finish', after: 'Done' },
    ]);
  });

  it('never counts moved node positions (metadata.layout) as a change', () => {
    const moved = withNodePositions(graphOf(GRAPH), new Map([['finish', { x: 400, y: 900 }], ['join-plans', { x: 10, y: 20 }]]));
    const movedAgain = withNodePositions(moved, new Map([['finish', { x: 1, y: 2 }]]));
    const diff = diffGraph(json(moved), json(movedAgain));
    if (diff.kind !== 'graph') throw new Error(diff.error);
    expect(diff.changed).toBe(false);
    expect(diff.fields).toEqual([]);
    // The picture still gets the positions, the new side's first.
    expect(diff.positions.finish).toEqual({ x: 1, y: 2 });
    // From the stored graph (no layout at all) to one with positions: still no change.
    expect(diffGraph(GRAPH, json(moved))).toMatchObject({ kind: 'graph', changed: false });
  });

  it('leaves an earlier BMAD-METHOD import’s own left-to-right positions out of the picture, but keeps a person’s', () => {
    const g = graphOf(GRAPH);
    const derived = legacyImportPositions(String(g.entryNodeId), g.nodes.map((n: { id: string }) => n.id), g.edges);
    const imported = withNodePositions({ ...g, metadata: { source: 'bmad-method' } }, new Map(Object.entries(derived)));
    const diff = diffGraph(json(imported), json(imported));
    if (diff.kind !== 'graph') throw new Error(diff.error);
    expect(diff.positions).toEqual({});
    const placed = withNodePositions(imported, new Map([...Object.entries(derived), ['finish', { x: 5, y: 600 }]]));
    const again = diffGraph(json(imported), json(placed));
    if (again.kind !== 'graph') throw new Error(again.error);
    expect(again.positions.finish).toEqual({ x: 5, y: 600 });
    expect(Object.keys(again.positions).sort()).toEqual(Object.keys(derived).sort());
  });

  it('reports other metadata and the entry node as graph fields', () => {
    const g = graphOf(GRAPH);
    g.entryNodeId = 'choose-track';
    g.metadata = { owner: 'ana', layout: { positions: {} } };
    const diff = diffGraph(GRAPH, json(g));
    if (diff.kind !== 'graph') throw new Error(diff.error);
    expect(diff.fields.map((f) => f.path)).toEqual(['entryNodeId', 'metadata.owner']);
  });

  it('tells which side does not parse, with where', () => {
    const broken = GRAPH.replace('"nodes": [', '"nodes": [,');
    const diff = diffGraph(GRAPH, broken);
    expect(diff.kind).toBe('unparsable');
    if (diff.kind !== 'unparsable') return;
    expect(diff.side).toBe('after');
    expect(diff.error).toMatch(/line \d+, column \d+/);
    expect(diffGraph('{"nodes": 3}', GRAPH)).toMatchObject({ kind: 'unparsable', side: 'before' });
  });

  it('a whole new graph (no before) is all added', () => {
    const text = triage.get('workflows/weekly-report/workflow.graph.json')!;
    const diff = diffGraph(null, text);
    if (diff.kind !== 'graph') throw new Error(diff.error);
    expect(diff.nodes.every((n) => n.status === 'added')).toBe(true);
    expect(diff.edges.every((e) => e.status === 'added')).toBe(true);
  });
});

describe('agents diff', () => {
  it("reads a changed persona as that agent's field, by path", () => {
    const file = JSON.parse(AGENTS);
    file.agents[0].persona.role = 'Senior course advisor';
    file.agents[0].persona.principles.push('Ask before assuming');
    file.agents[0].tools.fs.enabled = false;
    const diff = diffAgents(AGENTS, json(file));
    if (diff.kind !== 'agents') throw new Error(diff.error);
    expect(diff.agents).toHaveLength(1);
    expect(diff.agents[0]!.id).toBe('advisor');
    expect(diff.agents[0]!.status).toBe('changed');
    expect(diff.agents[0]!.fields.map((f) => f.path)).toEqual(['persona.role', 'persona.principles', 'tools.fs.enabled']);
    expect(diff.agents[0]!.fields[0]).toMatchObject({ before: 'Course advisor', after: 'Senior course advisor' });
  });

  it('reads one staged agent object (an agent: key) added and removed', () => {
    const agent = JSON.parse(AGENTS).agents[0];
    expect(semanticDiff('agent:advisor', null, json(agent))).toMatchObject({ kind: 'agents', agents: [{ id: 'advisor', status: 'added' }] });
    expect(semanticDiff('agent:advisor', json(agent), null)).toMatchObject({ kind: 'agents', agents: [{ id: 'advisor', status: 'removed' }] });
    // Reformatting alone is no change.
    expect(diffAgents(json(agent), JSON.stringify(agent))).toMatchObject({ changed: false, agents: [] });
  });

  it('an agent text that is not JSON is unparsable', () => {
    expect(diffAgents(AGENTS, '{"agents": [}')).toMatchObject({ kind: 'unparsable', side: 'after' });
  });
});

describe('frontmatter and sections', () => {
  it("reads a step's changed frontmatter field as a row of the field table", () => {
    const after = STEP.replace('title: "Choose a track"', 'title: "Pick a track"').replace('setsVariables: []\n', '');
    const fields = diffFrontmatter(STEP, after);
    expect(fields).toEqual([
      { path: 'title', kind: 'changed', before: 'Choose a track', after: 'Pick a track' },
      { path: 'setsVariables', kind: 'removed', before: [] },
    ]);
  });

  it('reads a changed transition inside the frontmatter by its path', () => {
    const after = STEP.replace('label: "advanced"', 'label: "expert"');
    expect(diffFrontmatter(STEP, after)).toEqual([{ path: 'transitions[1].label', kind: 'changed', before: 'advanced', after: 'expert' }]);
  });

  it('reads workflow.md by section: one changed, one added, one removed', () => {
    const after = WORKFLOW.replace('hand them a first study plan.', 'hand them a first study plan and a buddy.')
      .replace('## Running this workflow', '## Notes\n\nKeep it short.\n\n## How to run')
      .replace(/\n## Steps Index[\s\S]*$/u, '\n');
    const diff = diffMarkdown(WORKFLOW, after);
    if (diff.kind !== 'markdown') throw new Error(diff.error);
    expect(diff.frontmatter).toEqual([]);
    expect(diff.sections.map((s) => [s.title, s.status])).toEqual([
      ['Course placement › Goal', 'changed'],
      ['Course placement › Notes', 'added'],
      ['Course placement › How to run', 'added'],
      ['Course placement › Running this workflow', 'removed'],
      ['Course placement › Steps Index', 'removed'],
    ]);
  });

  it('an unchanged step has no semantic change; a broken frontmatter is unparsable with its line', () => {
    expect(semanticDiff('step:course/choose-track', STEP, STEP)).toMatchObject({ kind: 'markdown', changed: false });
    const broken = STEP.replace('type: "decision"', 'type: [decision');
    const diff = semanticDiff('step:course/choose-track', STEP, broken);
    expect(diff).toMatchObject({ kind: 'unparsable', side: 'after' });
  });

  it('a # line inside a fenced block is text of its section, not a heading', () => {
    const before = '---\na: 1\n---\n# T\n\n## Goal\n\n```sh\n# not a heading\n```\n';
    const after = before.replace('# not a heading', '# still not one');
    const diff = diffMarkdown(before, after);
    expect(diff).toMatchObject({ kind: 'markdown', sections: [{ title: 'T › Goal', status: 'changed' }] });
  });

  it('assets have no semantic view', () => {
    expect(semanticDiff('asset:assets/templates/study-plan.md', 'a', 'b')).toBeNull();
  });
});

describe('the frontmatter table parses only the blocks that differ', () => {
  const steps = [...triage.entries(), ...branching.entries()].filter(([path]) => /steps\/.*\.md$/u.test(path)).map(([, text]) => text);
  const edits: Array<(text: string) => string> = [
    (t) => t.replace(/^title: .*$/mu, 'title: "Renamed"'),
    (t) => t.replace(/^type: .*$/mu, 'type: "merge"\nowner: "ana"'),
    (t) => t.replace(/^inputs: .*\n/mu, ''),
    (t) => t.replace(/^transitions:\n/mu, 'transitions:\n  - to: "somewhere"\n    label: "new"\n'),
  ];

  it('gives the same table as parsing both sides whole, on every step of the test packages', async () => {
    const { parseFrontmatter } = await import('../../bmad/frontmatter.ts');
    const { diffValues } = await import('./values.ts');
    for (const before of steps) {
      for (const edit of edits) {
        const after = edit(before);
        const whole = diffValues((parseFrontmatter(before) as any).value.data, (parseFrontmatter(after) as any).value.data);
        expect(diffFrontmatter(before, after)).toEqual(whole);
      }
    }
  });

  it('a re-quoted value is no change; anchors and aliases fall back to the whole parse', async () => {
    const { topLevelBlocks } = await import('./frontmatter-blocks.ts');
    expect(diffFrontmatter(STEP, STEP.replace('title: "Choose a track"', "title: 'Choose a track'"))).toEqual([]);
    const anchored = '---\nbase: &b {x: 1}\nother: *b\n---\nbody\n';
    expect(topLevelBlocks('base: &b {x: 1}\nother: *b')).toBeNull();
    // The alias follows its anchor even though its own line did not change.
    expect(diffFrontmatter(anchored, anchored.replace('{x: 1}', '{x: 2}'))).toEqual([
      { path: 'base.x', kind: 'changed', before: 1, after: 2 },
      { path: 'other.x', kind: 'changed', before: 1, after: 2 },
    ]);
    expect(topLevelBlocks('a: 1\na: 2')).toBeNull();
  });
});

describe('the cheap paths give the answer of the whole parse', () => {
  const whole = async (before: string, after: string) => {
    const { parseFrontmatter } = await import('../../bmad/frontmatter.ts');
    const { diffValues } = await import('./values.ts');
    const { diffSections } = await import('./markdown.ts');
    const [b, a] = [parseFrontmatter(before), parseFrontmatter(after)] as any[];
    const frontmatter = diffValues(b.value.data, a.value.data);
    const sections = diffSections(b.value.body, a.value.body);
    return { kind: 'markdown', frontmatter, sections, changed: frontmatter.length > 0 || sections.length > 0 };
  };

  it('equal frontmatter (not parsed) and an equal body (not scanned) give what parsing both does', async () => {
    const bodyEdit = STEP.replace(/\n## /u, '\nA new line.\n\n## ');
    expect(diffMarkdown(STEP, bodyEdit)).toEqual(await whole(STEP, bodyEdit));
    const fieldEdit = STEP.replace('title: "Choose a track"', 'title: "Pick a track"');
    expect(diffMarkdown(STEP, fieldEdit)).toEqual(await whole(STEP, fieldEdit));
    expect(diffMarkdown(STEP, STEP)).toEqual({ kind: 'markdown', frontmatter: [], sections: [], changed: false });
  });

  it('an equal frontmatter the cut cannot vouch for is still parsed: a repeated key stays unparsable', () => {
    const text = '---\na: 1\na: 2\n---\n# T\n\nold\n';
    const diff = diffMarkdown(text, text.replace('old', 'new'));
    expect(diff.kind).toBe('unparsable');
    expect(diffMarkdown(text, text).kind).toBe('unparsable');
  });

  it('cuts blocks by offsets: comments and blanks between values stay, trailing ones go, quoted keys lose their quotes', async () => {
    const { topLevelBlocks } = await import('./frontmatter-blocks.ts');
    expect(topLevelBlocks('a:\n  - 1\n\n  - 2\n\n# note\n"b c": 1\n\'d\': x\n')).toEqual(
      new Map([['a', 'a:\n  - 1\n\n  - 2'], ['b c', '"b c": 1'], ['d', "'d': x"]]),
    );
    // A comment line ending in \r is not a blank line to the cut (as its regex read it): whole parse.
    expect(topLevelBlocks('# c\r\na: 1')).toBeNull();
    expect(topLevelBlocks('  a: 1')).toBeNull();
  });

  it('reads headings and fences in place on CRLF bodies, ~~~ fences included', async () => {
    const { ownSections } = await import('./markdown.ts');
    const body = '# A\r\nintro\r\n~~~\r\n# not a heading\r\n~~~\r\n## B ##\r\nb\r\n   ### C\r\nc';
    expect([...ownSections(body).values()]).toEqual([
      { title: 'A', level: 1, text: 'intro\r\n~~~\r\n# not a heading\r\n~~~' },
      { title: 'A › B', level: 2, text: 'b' },
      { title: 'A › B › C', level: 3, text: 'c' },
    ]);
  });
});
