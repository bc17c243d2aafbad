/**
 * The canvas's edits as pure functions of the stored graph text and step files: each returns a
 * GraphChange (graph before and after, step files created, deleted, and rewritten so their
 * `transitions` match the new edges) or the reason it is refused, checked with the same rules the
 * Worker applies. A change inverts exactly (`graph-change.ts`), which is what undo saves. No Svelte,
 * no I/O. The canvas imports this module on its first edit: the step rewrites carry the YAML parser.
 */
import { t } from './i18n/i18n.svelte.ts';
import './i18n/graph-words.ts';
// The words of a refused edit (pageWords.graph.problem), added with the edits, not with every page.
import './i18n/page-words.ts';
import type { StepView } from '../../shared/api/index.ts';
import { graphEditProblems, type GraphEditProblem } from '../../shared/bmad/graph-edit-rules.ts';
import { stepWithGraphTransitions, transitionUpdates } from '../../shared/bmad/graph-edit-steps.ts';
import { readNodePositions, withNodePositions, type NodePosition } from '../../shared/bmad/graph-positions.ts';
import type { EditResult, GraphChange, StepUpdate } from './graph-change.ts';

export type { EditResult, GraphChange, StepUpdate };
export { invertChange } from './graph-change.ts';

export interface EdgePatch {
  label?: string;
  conditionText?: string;
  isDefault?: boolean;
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parse(text: string): Json | null {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

const nodesOf = (graph: Json): Json[] => (Array.isArray(graph.nodes) ? graph.nodes.filter(isRecord) : []);
const edgesOf = (graph: Json): Json[] => (Array.isArray(graph.edges) ? graph.edges.filter(isRecord) : []);

export function serializeGraph(graph: Json): string {
  return `${JSON.stringify(graph, null, 2)}\n`;
}

/**
 * A step with several ways out needs one default; when an edit leaves `sources` without one, the
 * first of their edges becomes it (the way the step went before the edit, for an added edge).
 */
function withDefaults(edges: Json[], sources: ReadonlyArray<unknown>): Json[] {
  const needing = new Set(
    sources.filter((id) => {
      const out = edges.filter((e) => e.from === id);
      return out.length > 1 && !out.some((e) => e.isDefault === true);
    }),
  );
  return edges.map((e) => {
    if (!needing.has(e.from)) return e;
    needing.delete(e.from);
    return { ...e, isDefault: true };
  });
}

/** Problems of a canvas edit in the reader's language, one sentence after another. */
export function graphProblemWords(problems: readonly GraphEditProblem[]): string {
  return problems.map((p) => t(`pageWords.graph.problem.${p.code}`, p.params)).join(' ');
}

function finish(label: string, before: string, graph: Json, steps: readonly StepView[], create: StepView[] = [], remove: StepView[] = []): EditResult {
  const after = serializeGraph(graph);
  const problems = graphEditProblems({
    before,
    after,
    storedSteps: steps,
    createSteps: create.map((s) => s.nodeId),
    deleteSteps: remove.map((s) => s.nodeId),
  });
  if (problems.length > 0) return { ok: false, message: graphProblemWords(problems) };
  // Step files list their node's edges as transitions: the same derivation the Worker repeats.
  const gone = new Set(remove.map((s) => s.nodeId));
  const kept = steps.filter((s) => !gone.has(s.nodeId));
  const updateSteps = transitionUpdates(before, after, kept).map(({ nodeId, markdown }) => {
    const step = kept.find((s) => s.nodeId === nodeId)!;
    return { nodeId, path: step.path, before: step.markdown, after: markdown };
  });
  const createSteps = create.map((s) => ({ ...s, markdown: stepWithGraphTransitions(after, s.nodeId, s.markdown) }));
  return { ok: true, change: { label, before, after, createSteps, deleteSteps: remove, updateSteps } };
}

function unreadable(): EditResult {
  return { ok: false, message: t('graph.edit.unreadable') };
}

/** A fresh id `step-<n>` that no node and no step file uses. */
export function freshNodeId(graph: Json, steps: readonly StepView[]): string {
  const taken = new Set([...nodesOf(graph).map((n) => String(n.id)), ...steps.map((s) => s.nodeId)]);
  let n = nodesOf(graph).length + 1;
  while (taken.has(`step-${n}`)) n += 1;
  return `step-${n}`;
}

function stepsFolder(graph: Json, near: string | undefined): string {
  const nodes = nodesOf(graph);
  const file = String((nodes.find((n) => n.id === near) ?? nodes.find((n) => n.id === graph.entryNodeId) ?? nodes[0])?.file ?? '');
  const slash = file.lastIndexOf('/');
  return slash > 0 ? file.slice(0, slash) : 'steps';
}

/** A new step file that passes the .bmad step rules: frontmatter, Goal, Instructions. */
export function newStepMarkdown(nodeId: string, title: string): string {
  return `---
schemaVersion: "1.1"
nodeId: "${nodeId}"
type: "step"
title: "${title}"
inputs: []
outputs: []
transitions: []
---

# ${title}

## Goal

Describe what this step achieves.

## Instructions

1. Describe what the agent should do.
`;
}

/**
 * A new step with its node and step file, after `from` (the start step when none is given, since a
 * step nothing leads to would break the graph). When `from` has ways out, the step goes on its
 * default path: the default edge (the only edge, or the one marked default) is re-pointed at the
 * new step, keeping its label, condition and flag, and a new edge from the new step leads on to
 * where that edge went, so no path ends at the new step. Otherwise a plain edge `from` → new.
 * `positions` are stored with the new step's (`position`): the places the canvas drew the other
 * nodes at, moved to make room, so nothing is re-laid out on top of the new step.
 */
export function addStep(
  text: string,
  steps: readonly StepView[],
  options: { from?: string | undefined; position?: NodePosition | undefined; positions?: ReadonlyMap<string, NodePosition> | undefined } = {},
): EditResult {
  const graph = parse(text);
  if (!graph) return unreadable();
  const id = freshNodeId(graph, steps);
  const title = `New step ${id.slice('step-'.length)}`;
  const from = options.from ?? (typeof graph.entryNodeId === 'string' ? graph.entryNodeId : undefined);
  const file = `${stepsFolder(graph, from)}/${id}.md`;
  let next: Json = { ...graph, nodes: [...nodesOf(graph), { id, type: 'step', file, title }] };
  if (from !== undefined) {
    const edges = edgesOf(graph);
    const out = edges.filter((e) => e.from === from);
    const onPath = out.find((e) => e.isDefault === true) ?? (out.length === 1 ? out[0] : undefined);
    if (onPath) {
      const onward: Json = { from: id, to: onPath.to, label: 'next' };
      if (onPath.isDefault === true) onward.isDefault = true;
      next = { ...next, edges: [...edges.map((e) => (e === onPath ? { ...e, to: id } : e)), onward] };
    } else {
      next = { ...next, edges: withDefaults([...edges, { from, to: id, label: 'next' }], [from]) };
    }
  }
  if (options.position) {
    next = withNodePositions(next, new Map([...readNodePositions(graph), ...(options.positions ?? []), [id, options.position]]));
  }
  return finish(t('graph.edit.addStep', { id }), text, next, steps, [{ nodeId: id, path: file, markdown: newStepMarkdown(id, title) }]);
}

/**
 * Where a step added after `from` is drawn: one row (`rowHeight`) below `from`, with every node
 * drawn below `from` moved down together until the new step's row is clear. Nodes at or above
 * `from`'s row end at least a row above the new step, so no card overlaps it. Returns the new
 * step's place and every node's place (moved or not), to be stored together.
 */
export function placeAfter(
  drawn: ReadonlyMap<string, NodePosition>,
  from: string,
  rowHeight: number,
): { position: NodePosition; positions: Map<string, NodePosition> } | undefined {
  const at = drawn.get(from);
  if (!at) return undefined;
  const position = { x: at.x, y: at.y + rowHeight };
  const below = new Set([...drawn].filter(([id, p]) => id !== from && p.y > at.y).map(([id]) => id));
  const shift = Math.max(0, ...[...below].map((id) => position.y + rowHeight - drawn.get(id)!.y));
  const positions = new Map([...drawn].map(([id, p]) => [id, below.has(id) ? { x: p.x, y: p.y + shift } : p]));
  return { position, positions };
}

/**
 * Deletes a step: its node, every edge touching it, its position and its step file. A step on a
 * path (one edge in, one edge out, neither a loop, and no edge already joining its two neighbours)
 * leaves the path joined: the edge in is re-pointed at where the edge out went, keeping its label,
 * condition and flag, which undoes what "add step after" did.
 */
export function deleteStep(text: string, steps: readonly StepView[], nodeId: string): EditResult {
  const graph = parse(text);
  if (!graph) return unreadable();
  const node = nodesOf(graph).find((n) => n.id === nodeId);
  if (!node) return { ok: false, message: t('graph.edit.noStep', { id: nodeId }) };
  const edges = edgesOf(graph);
  const sources = edges.filter((e) => e.to === nodeId).map((e) => e.from);
  const into = edges.filter((e) => e.to === nodeId);
  const out = edges.filter((e) => e.from === nodeId);
  const [inEdge, outEdge] = [into[0], out[0]];
  const joins =
    into.length === 1 && out.length === 1 && inEdge!.from !== nodeId && outEdge!.to !== nodeId && !edges.some((e) => e.from === inEdge!.from && e.to === outEdge!.to);
  let next: Json = {
    ...graph,
    nodes: nodesOf(graph).filter((n) => n.id !== nodeId),
    edges: withDefaults(
      edges.flatMap((e) => (joins && e === inEdge ? [{ ...e, to: outEdge!.to }] : e.from !== nodeId && e.to !== nodeId ? [e] : [])),
      sources,
    ),
  };
  const positions = readNodePositions(graph);
  if (positions.has(nodeId)) next = withNodePositions(next, positions);
  const file = steps.find((s) => s.path === node.file) ?? steps.find((s) => s.nodeId === nodeId);
  return finish(t('graph.edit.deleteStep', { id: nodeId }), text, next, steps, [], file && file.nodeId === nodeId ? [file] : []);
}

/** A new edge `from` → `to`; the label defaults to “next” (the schema needs one). */
export function addEdge(text: string, steps: readonly StepView[], from: string, to: string, label = 'next'): EditResult {
  const graph = parse(text);
  if (!graph) return unreadable();
  if (edgesOf(graph).some((e) => e.from === from && e.to === to)) {
    return { ok: false, message: t('graph.edit.edgeExists', { from, to }) };
  }
  const next = { ...graph, edges: withDefaults([...edgesOf(graph), { from, to, label }], [from]) };
  return finish(t('graph.edit.connect', { from, to }), text, next, steps);
}

export function deleteEdge(text: string, steps: readonly StepView[], index: number): EditResult {
  const graph = parse(text);
  if (!graph) return unreadable();
  const edge = edgesOf(graph)[index];
  if (!edge) return { ok: false, message: t('graph.edit.edgeGone') };
  const next = { ...graph, edges: withDefaults(edgesOf(graph).filter((_, i) => i !== index), [edge.from]) };
  return finish(t('graph.edit.deleteEdge', { label: String(edge.label) }), text, next, steps);
}

/** Label, condition and default flag of one edge; an empty condition is removed. */
export function updateEdge(text: string, steps: readonly StepView[], index: number, patch: EdgePatch): EditResult {
  const graph = parse(text);
  if (!graph) return unreadable();
  const edge = edgesOf(graph)[index];
  if (!edge) return { ok: false, message: t('graph.edit.edgeGone') };
  if (patch.label !== undefined && patch.label.trim() === '') return { ok: false, message: t('graph.edit.edgeNeedsLabel') };
  const updated: Json = { ...edge };
  if (patch.label !== undefined) updated.label = patch.label.trim();
  if (patch.conditionText !== undefined) {
    if (patch.conditionText.trim() === '') delete updated.conditionText;
    else updated.conditionText = patch.conditionText;
  }
  if (patch.isDefault !== undefined) {
    if (patch.isDefault) updated.isDefault = true;
    else delete updated.isDefault;
  }
  const edges = edgesOf(graph).map((e, i) => {
    if (i === index) return updated;
    // One default edge per source step: making this one the default takes the flag from its siblings.
    if (patch.isDefault && e.from === edge.from && e.isDefault === true) {
      const { isDefault: _dropped, ...rest } = e;
      return rest;
    }
    return e;
  });
  return finish(t('graph.edit.editEdge', { label: String(updated.label) }), text, { ...graph, edges }, steps);
}

/** Stores positions (a drag, a burst of drags, or an auto-layout) in the graph's layout metadata. */
export function moveNodes(text: string, steps: readonly StepView[], moved: ReadonlyMap<string, NodePosition>, label = t('graph.moveSteps')): EditResult {
  const graph = parse(text);
  if (!graph) return unreadable();
  const positions = new Map([...readNodePositions(graph), ...moved]);
  const next = withNodePositions(graph, positions);
  const after = serializeGraph(next);
  if (after === text) return { ok: false, message: t('graph.edit.nothingMoved') };
  return finish(label, text, next, steps);
}
