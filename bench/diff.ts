/**
 * The diff row of `npm run bench`: the full diff of a 100-file change set on the 500-step package,
 * as the Workbench computes it — for every changed file the unified text diff (jsdiff
 * `createTwoFilesPatch`, as app/lib/workbench/unified-diff.ts calls it) plus its semantic diff
 * (shared/ai/semantic-diff: graph nodes and edges, agents by field, frontmatter and sections) —
 * beside jsdiff alone on the same files. The goal is ≤ 1.5×.
 *
 * The change set is deterministic: in each of the 5 workflows, the graph (a node and an edge added,
 * an edge relabelled, every position moved) and workflow.md (a section rewritten), agents.json (a
 * persona changed), and 89 step files (a frontmatter field and a sentence of the body changed).
 */
import { createTwoFilesPatch } from 'diff';
import { semanticDiff } from '../shared/ai/semantic-diff/index.ts';
import { withNodePositions } from '../shared/bmad/graph-positions.ts';

export interface ChangedText {
  key: string;
  path: string;
  before: string;
  after: string;
}

const STEP_FILES = 89;

/** The object key the session would give a package path (only the kinds this change set touches). */
function keyOf(path: string): string {
  const workflow = /^workflows\/([^/]+)\//u.exec(path)?.[1] ?? '';
  if (path === 'agents.json') return 'agent:all';
  if (path.endsWith('workflow.graph.json')) return `graph:${workflow}`;
  if (path.endsWith('/workflow.md')) return `workflow:${workflow}`;
  const node = /steps\/([^/]+)\.md$/u.exec(path)?.[1] ?? '';
  return `step:${workflow}/${node}`;
}

function changeGraph(text: string): string {
  const graph = JSON.parse(text) as { nodes: Array<Record<string, unknown>>; edges: Array<Record<string, unknown>> };
  const first = graph.nodes[0]!;
  graph.nodes.push({ id: `${String(first.id)}-extra`, type: 'step', file: String(first.file).replace(/\.md$/u, '-extra.md'), title: 'Extra check' });
  graph.edges.push({ from: first.id, to: `${String(first.id)}-extra`, label: 'extra' });
  graph.edges[1]!.label = 'relabelled';
  const positions = new Map(graph.nodes.map((n, i) => [String(n.id), { x: (i % 7) * 180, y: Math.floor(i / 7) * 120 }]));
  return `${JSON.stringify(withNodePositions(graph, positions), null, 2)}\n`;
}

/** The 100 changed files of the row, from the generated 500-step package. */
export function changeSetOf(files: ReadonlyMap<string, string>): ChangedText[] {
  const out: ChangedText[] = [];
  const add = (path: string, after: string) => out.push({ key: keyOf(path), path, before: files.get(path)!, after });
  for (const [path, text] of files) {
    if (path.endsWith('workflow.graph.json')) add(path, changeGraph(text));
    else if (path.endsWith('/workflow.md')) add(path, text.replace('## Goal', '## Goal\n\nA rewritten opening line for the reviewers.'));
  }
  const agents = JSON.parse(files.get('agents.json')!) as { agents: Array<{ persona: { role: string } }> };
  agents.agents[0]!.persona.role = 'Senior expense analyst';
  add('agents.json', `${JSON.stringify(agents, null, 2)}\n`);
  const steps = [...files.keys()].filter((p) => /\/steps\/[^/]+\.md$/u.test(p));
  const every = Math.floor(steps.length / STEP_FILES);
  for (let i = 0; i < STEP_FILES; i++) {
    const path = steps[i * every]!;
    add(path, files.get(path)!.replace(/^title: "(.*)"$/mu, 'title: "$1 (revised)"').replace('## Instructions\n', '## Instructions\n\nCheck the totals twice.\n'));
  }
  if (out.length !== 100 || out.some((f) => f.before === f.after)) throw new Error(`the diff row's change set has ${out.length} files, or an unchanged one`);
  return out;
}

function textDiff(file: ChangedText): string {
  return createTwoFilesPatch(`a/${file.path}`, `b/${file.path}`, file.before, file.after, undefined, undefined, { context: 3 });
}

/** Ours: the text diff and the semantic diff of every file. */
export function fullDiff(changes: readonly ChangedText[]): unknown[] {
  return changes.map((file) => [textDiff(file), semanticDiff(file.key, file.before, file.after)]);
}

/** The peer: jsdiff alone on the same files. */
export function textDiffOnly(changes: readonly ChangedText[]): unknown[] {
  return changes.map(textDiff);
}

/** Checked once, untimed: every semantic diff parses and finds its change (a row that diffs nothing measures nothing). */
export function checkChangeSet(changes: readonly ChangedText[]): string | null {
  for (const file of changes) {
    const diff = semanticDiff(file.key, file.before, file.after);
    if (!diff || diff.kind === 'unparsable' || !diff.changed) return `${file.path}: ${diff?.kind === 'unparsable' ? diff.error : 'no semantic change found'}`;
  }
  return null;
}
