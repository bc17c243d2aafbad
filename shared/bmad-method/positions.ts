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

/**
 * The parsed graph came from an earlier BMAD-METHOD import and its stored positions are still the
 * ones that import derived: every one on the import's grid (a layer's column, a row of it), no two
 * in one place. Not "exactly what the import derives for the graph now": a step the AI or a person
 * added since (with no position) moves the layers after it, and the graph would then be drawn left
 * to right with the new step wherever. A person's positions, or the ones the canvas saved at the
 * first edit, are the drawn places, off that grid.
 */
export function hasLegacyImportLayout(graph: unknown): boolean {
  if (!isRecord(graph) || !isRecord(graph.metadata) || graph.metadata.source !== 'bmad-method' || typeof graph.entryNodeId !== 'string') return false;
  const stored = readNodePositions(graph);
  if (stored.size === 0) return false;
  const onGrid = (value: number, gap: number) => value >= 0 && Number.isInteger(value / gap);
  const cells = new Set([...stored.values()].map((p) => `${p.x},${p.y}`));
  return cells.size === stored.size && [...stored.values()].every((p) => onGrid(p.x, LAYER_GAP) && onGrid(p.y, ROW_GAP));
}
