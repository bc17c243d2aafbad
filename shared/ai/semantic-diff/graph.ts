/**
 * The semantic diff of a workflow.graph.json: nodes and edges added, removed or changed (field by
 * field), and graph-level fields. Node positions (`metadata.layout`) are layout, never a change
 * (an earlier BMAD-METHOD import's own are left out of the picture: bmad-method/positions.ts).
 * Nodes match by id; edges by id, else by `from->to` (a repeated pair by its occurrence), so a
 * relabelled edge reads as changed rather than removed and added. Linear in the graph's size.
 */
import { readNodePositions } from '../../bmad/graph-positions.ts';
import { hasLegacyImportLayout } from '../../bmad-method/positions.ts';
import { parseJsonSide } from './parse.ts';
import type { FieldChange, GraphDiffResult, GraphEdgeDiff, GraphNodeDiff, Unparsable } from './types.ts';
import { diffValues } from './values.ts';

type Obj = Record<string, unknown>;

export interface GraphShape {
  graph: Obj;
  nodes: Map<string, Obj>;
  edges: Map<string, Obj>;
}

function isRecord(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Edge keys of a graph, in order: the id when it has one, else `from->to`, `from->to#2` for a repeat. */
export function edgeKeys(edges: readonly Obj[]): string[] {
  const seen = new Map<string, number>();
  return edges.map((edge) => {
    if (typeof edge.id === 'string' && edge.id !== '') return `#${edge.id}`;
    const pair = `${String(edge.from)}->${String(edge.to)}`;
    const n = (seen.get(pair) ?? 0) + 1;
    seen.set(pair, n);
    return n === 1 ? pair : `${pair}#${n}`;
  });
}

/** A parsed graph's nodes and edges by key, or why it cannot be drawn. */
export function readGraph(text: string): { ok: true; shape: GraphShape } | { ok: false; error: string } {
  const parsed = parseJsonSide(text, 'workflow.graph.json');
  if (!parsed.ok) return parsed;
  const graph = parsed.value;
  if (!isRecord(graph) || !Array.isArray(graph.nodes) || !Array.isArray(graph.edges)) {
    return { ok: false, error: 'workflow.graph.json is not a graph: it needs a "nodes" list and an "edges" list.' };
  }
  const nodes = new Map<string, Obj>();
  for (const node of graph.nodes) {
    if (!isRecord(node) || typeof node.id !== 'string') return { ok: false, error: 'A node of workflow.graph.json has no string "id".' };
    nodes.set(node.id, node);
  }
  const edgeList = graph.edges.filter(isRecord);
  if (edgeList.length !== graph.edges.length) return { ok: false, error: 'An edge of workflow.graph.json is not an object.' };
  const keys = edgeKeys(edgeList);
  const edges = new Map<string, Obj>(edgeList.map((edge, i) => [keys[i]!, edge]));
  return { ok: true, shape: { graph, nodes, edges } };
}

const NO_SKIP = new Set<string>();
const GRAPH_LAYOUT_SKIP = new Set(['nodes', 'edges', 'metadata']);

/** Graph-level fields, with `metadata` compared without its layout. */
function graphFields(before: Obj, after: Obj): FieldChange[] {
  const fields = diffValues(before, after, '', GRAPH_LAYOUT_SKIP);
  const meta = (g: Obj) => (isRecord(g.metadata) ? g.metadata : {});
  fields.push(...diffValues(meta(before), meta(after), 'metadata', new Set(['layout'])));
  return fields;
}

function diffParts<T>(before: Map<string, Obj>, after: Map<string, Obj>, make: (key: string, status: GraphNodeDiff['status'], value: Obj, fields: FieldChange[]) => T): T[] {
  const out: T[] = [];
  for (const [key, next] of after) {
    const prev = before.get(key);
    if (!prev) out.push(make(key, 'added', next, []));
    else {
      const fields = diffValues(prev, next, '', NO_SKIP);
      out.push(make(key, fields.length > 0 ? 'changed' : 'unchanged', next, fields));
    }
  }
  for (const [key, prev] of before) if (!after.has(key)) out.push(make(key, 'removed', prev, []));
  return out;
}

const EMPTY: GraphShape = { graph: {}, nodes: new Map(), edges: new Map() };

/** The diff of two graph texts (null: the file does not exist on that side). */
export function diffGraph(beforeText: string | null, afterText: string | null): GraphDiffResult | Unparsable {
  const before = beforeText === null ? { ok: true as const, shape: EMPTY } : readGraph(beforeText);
  if (!before.ok) return { kind: 'unparsable', side: 'before', error: before.error };
  const after = afterText === null ? { ok: true as const, shape: EMPTY } : readGraph(afterText);
  if (!after.ok) return { kind: 'unparsable', side: 'after', error: after.error };
  return diffGraphShapes(before.shape, after.shape);
}

export function diffGraphShapes(before: GraphShape, after: GraphShape): GraphDiffResult {
  const nodes = diffParts(before.nodes, after.nodes, (id, status, node, fields): GraphNodeDiff => ({ id, status, node, fields }));
  const edges = diffParts(before.edges, after.edges, (key, status, edge, fields): GraphEdgeDiff => ({
    key,
    from: String(edge.from),
    to: String(edge.to),
    status,
    edge,
    fields,
  }));
  const fields = graphFields(before.graph, after.graph);
  const positions: GraphDiffResult['positions'] = {};
  // An earlier BMAD-METHOD import's own positions (left to right) are not drawn: the picture lays those nodes out.
  const drawn = (graph: Obj) => (hasLegacyImportLayout(graph) ? [] : readNodePositions(graph));
  for (const [id, p] of drawn(before.graph)) positions[id] = p;
  for (const [id, p] of drawn(after.graph)) positions[id] = p;
  const changed = fields.length > 0 || nodes.some((n) => n.status !== 'unchanged') || edges.some((e) => e.status !== 'unchanged');
  return { kind: 'graph', nodes, edges, fields, positions, changed };
}
