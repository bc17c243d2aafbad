/**
 * One derived workflow: its step sources (uploaded step files, or `<step>` blocks of its workflow
 * text) and their links become the graph, the step files and the workflow.md of the package.
 * A step with several targets is a decision, one without an end. A looping step whose menu has an
 * Exit choice (`[X] Exit`) gets an edge to an end node the import writes (`exportAs: "none"`:
 * export leaves it out), so the loop has its way out.
 */
import { warningIssue, type ValidationIssue } from '../bmad/issues.ts';
import type { GraphEdge, GraphNode, WorkflowGraph } from '../bmad/models.ts';
import type { BmadPackage } from '../bmad/package.ts';
import { addGeneratedFields, type GeneratedFields } from './generated.ts';
import { exitOption, type StepText } from './links.ts';
import type { Candidate } from './workflow-files.ts';

export interface SourceEdge {
  /** The key of the target source. */
  to: string;
  label: string;
  key?: string;
  line: number;
}

export interface StepSource {
  /** An uploaded path, or `<workflow file>#<nodeId>` for a step written inline. */
  key: string;
  nodeId: string;
  /** Path in the package, `workflows/<id>/…`. */
  storedPath: string;
  text: StepText;
  /** The text the step file starts from (before the generated fields). */
  body: string;
  /** Extra generated fields: `exportAs: "inline"` for a step export puts back into its workflow text. */
  extra?: GeneratedFields;
  title?: string;
}

export interface DerivedWorkflowSummary {
  id: string;
  name: string;
  source: string;
  graph: WorkflowGraph;
  steps: Array<{ file: string; source: string; nodeId: string }>;
}

const CONTINUATION_FILE = /-continue\.md$/iu;

/** The end node the import writes for an Exit choice: a .bmad step of its own (its sections are there, so the strict rules hold). */
export const END_STEP_TEXT = `# End

## Goal

The workflow ends here: the person chose to stop.

## Instructions

- Stop the workflow; save what was produced so far.
`;

/** Whether `from` is on a loop: one of its targets leads back to it. */
function onLoop(from: string, edgesOf: ReadonlyMap<string, readonly SourceEdge[]>): boolean {
  const seen = new Set<string>();
  const queue = (edgesOf.get(from) ?? []).map((e) => e.to);
  while (queue.length > 0) {
    const next = queue.shift()!;
    if (next === from) return true;
    if (seen.has(next)) continue;
    seen.add(next);
    for (const e of edgesOf.get(next) ?? []) queue.push(e.to);
  }
  return false;
}

export interface BuildInput {
  id: string;
  candidate: Candidate;
  entry: string;
  /** The sources the workflow reaches, entry first. */
  sources: readonly StepSource[];
  edgesOf: ReadonlyMap<string, readonly SourceEdge[]>;
  /** Sources that end the workflow on an edge of their own (label), besides Exit choices. */
  endAfter?: ReadonlyMap<string, string>;
  /** The package's workflow.md text (before the generated fields). */
  workflowText: string;
}

export function buildWorkflow(input: BuildInput, pkg: BmadPackage, issues: ValidationIssue[]): DerivedWorkflowSummary {
  const { id, candidate, entry, sources, edgesOf } = input;
  const byKey = new Map(sources.map((s) => [s.key, s]));
  const taken = new Set(sources.map((s) => s.nodeId));
  const storedTaken = new Set(sources.map((s) => s.storedPath));
  const edges: GraphEdge[] = [];
  const nodes: GraphNode[] = [];
  const ends: Array<{ from: string; label: string; isDefault: boolean }> = [];
  for (const source of [...sources].sort((a, b) => a.key.localeCompare(b.key))) {
    const from = source.nodeId;
    const out = (edgesOf.get(source.key) ?? []).filter((e) => {
      if (!byKey.has(e.to)) return false;
      // "[Back] - return to step-01" is common in real BMAD steps, but a .bmad graph's entry is its
      // only node without incoming edges (the start rule), so the return stays in the text only.
      if (e.to === entry) {
        issues.push(
          warningIssue('BMAD_LINK_TO_ENTRY', source.key, `Line ${e.line} links back to the entry step ${byKey.get(entry)!.nodeId} (${e.label}); a graph cannot lead into its entry, so the link stays in the step text but is not an edge.`, {
            hint: 'The model still follows the text; to draw the loop, point it at a step after the entry.',
          }),
        );
        return false;
      }
      return true;
    });
    const end = input.endAfter?.get(source.key) ?? (out.length > 0 && onLoop(source.key, edgesOf) ? exitOption(source.text) : undefined);
    // The default is the ordinary way on: nextStepFile, else [C], else the first link that is not
    // the hand-over to a continuation file (`step-01b-continue.md` runs only when resuming).
    // An end the workflow text puts after its last step (endAfter) is that step's ordinary way on.
    const preferred = input.endAfter?.has(source.key)
      ? undefined
      : out.find((e) => e.key === 'nextStepFile') ?? out.find((e) => e.label.startsWith('[C]')) ?? out.find((e) => !CONTINUATION_FILE.test(e.to)) ?? out[0];
    for (const e of out) {
      const to = byKey.get(e.to)!.nodeId;
      edges.push({ id: `${from}->${to}`, from, to, label: e.label, ...(out.length + (end ? 1 : 0) > 1 && e === preferred ? { isDefault: true } : {}) });
    }
    if (end) ends.push({ from, label: end, isDefault: out.length > 0 && preferred === undefined });
    const count = out.length + (end ? 1 : 0);
    nodes.push({ id: from, type: count === 0 ? 'end' : count > 1 ? 'decision' : 'step', file: source.storedPath, ...(source.title ? { title: source.title } : {}) });
  }
  const written: Array<{ nodeId: string; path: string; markdown: string }> = [];
  if (ends.length > 0) {
    let endId = 'end';
    for (let n = 2; taken.has(endId); n++) endId = `end-${n}`;
    let path = `workflows/${id}/steps/${endId}.md`;
    for (let n = 2; storedTaken.has(path); n++) path = `workflows/${id}/steps/${endId}-${n}.md`;
    nodes.push({ id: endId, type: 'end', file: path, title: 'End' });
    for (const e of ends) edges.push({ id: `${e.from}->${endId}`, from: e.from, to: endId, label: e.label, ...(e.isDefault ? { isDefault: true } : {}) });
    written.push({
      nodeId: endId,
      path,
      markdown: addGeneratedFields(END_STEP_TEXT, { schemaVersion: '1.1', nodeId: endId, type: 'end', exportAs: 'none' }),
    });
  }
  const entryId = byKey.get(entry)!.nodeId;
  const graph: WorkflowGraph = {
    schemaVersion: '1.1',
    entryNodeId: entryId,
    nodes,
    edges,
    // No positions: the canvas lays an unplaced graph out itself, top to bottom (positions.ts).
    metadata: { source: 'bmad-method' },
  };
  const typeOf = (nodeId: string) => nodes.find((n) => n.id === nodeId)!.type;
  const stepFiles = [...sources].sort((a, b) => a.key.localeCompare(b.key)).map((s) => ({
    nodeId: s.nodeId,
    path: s.storedPath,
    markdown: addGeneratedFields(s.body, { schemaVersion: '1.1', nodeId: s.nodeId, type: typeOf(s.nodeId), origin: 'bmad-method', ...s.extra }),
  }));
  pkg.workflows.push({
    id,
    displayName: candidate.name,
    ...(candidate.description ? { description: candidate.description } : {}),
    workflowMdPath: `workflows/${id}/workflow.md`,
    graphPath: `workflows/${id}/workflow.graph.json`,
    workflowMd: addGeneratedFields(input.workflowText, { schemaVersion: '1.1', workflowType: candidate.name, currentNodeId: '', stepsCompleted: [] }),
    graphJson: `${JSON.stringify(graph, null, 2)}\n`,
    steps: [...stepFiles, ...written],
  });
  return {
    id,
    name: candidate.name,
    source: candidate.legacy ?? candidate.path,
    graph,
    steps: [
      ...stepFiles.map((s) => ({ file: s.path, source: byKey.get(sources.find((x) => x.nodeId === s.nodeId)!.key)!.key, nodeId: s.nodeId })),
      ...written.map((w) => ({ file: w.path, source: '', nodeId: w.nodeId })),
    ],
  };
}
