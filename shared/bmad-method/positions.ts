/**
 * Node positions the BMAD-METHOD import used to store, and how to recognise them. The import
 * stores none now: the canvas lays out every node without a position itself (dagre, top to
 * bottom), so the picture matches its edge routes. Earlier imports wrote their own layers in
 * the graph's `metadata.layout.positions` (shared/bmad/graph-positions.ts): by shortest distance
 * from the entry, left to right, the nodes of a layer stacked top to bottom. Projects imported
 * then still hold them, so the canvas and the graph diff recognise them and lay such a graph out
 * as if it had none; a person's positions (any node moved) are kept.
 */
import type { GraphEdge } from '../bmad/models.ts';
import { readNodePositions, type NodePosition } from '../bmad/graph-positions.ts';

export const LAYER_GAP = 280;
export const ROW_GAP = 140;

/** The positions an earlier import stored for a graph: layers left to right, unreached nodes in a last layer. */
export function legacyImportPositions(
  entryId: string,
  nodeIds: readonly string[],
  edges: ReadonlyArray<Pick<GraphEdge, 'from' | 'to'>>,
): Record<string, NodePosition> {
  const depth = new Map<string, number>([[entryId, 0]]);
  const queue = [entryId];
  while (queue.length > 0) {
    const id = queue.shift()!;
    for (const edge of edges) {
      if (edge.from !== id || depth.has(edge.to)) continue;
      depth.set(edge.to, depth.get(id)! + 1);
      queue.push(edge.to);
    }
  }
  const last = Math.max(0, ...depth.values()) + 1;
  const rows = new Map<number, number>();
  const positions: Record<string, NodePosition> = {};
  for (const id of nodeIds) {
    const layer = depth.get(id) ?? last;
    const row = rows.get(layer) ?? 0;
    rows.set(layer, row + 1);
    positions[id] = { x: layer * LAYER_GAP, y: row * ROW_GAP };
  }
  return positions;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The parsed graph came from an earlier BMAD-METHOD import and stores exactly the positions it derived (no person placed a node since). */
export function hasLegacyImportLayout(graph: unknown): boolean {
  if (!isRecord(graph) || !isRecord(graph.metadata) || graph.metadata.source !== 'bmad-method' || typeof graph.entryNodeId !== 'string') return false;
  const stored = readNodePositions(graph);
  if (stored.size === 0) return false;
  const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
  const nodeIds = list(graph.nodes).flatMap((n) => (isRecord(n) && typeof n.id === 'string' ? [n.id] : []));
  const edges = list(graph.edges).flatMap((e) => (isRecord(e) && typeof e.from === 'string' && typeof e.to === 'string' ? [{ from: e.from, to: e.to }] : []));
  const derived = legacyImportPositions(graph.entryNodeId, nodeIds, edges);
  return [...stored].every(([id, p]) => derived[id]?.x === p.x && derived[id]?.y === p.y);
}
