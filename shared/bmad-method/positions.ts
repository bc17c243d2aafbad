/**
 * Node positions for a derived graph, kept where the canvas keeps them: the graph's top-level
 * `metadata.layout.positions` (shared/bmad/graph-positions.ts; nodes allow no extra fields): layers by shortest distance from the entry, left to right, nodes of a
 * layer stacked top to bottom. Unreached nodes get a last layer.
 */
import type { GraphEdge } from '../bmad/models.ts';

export const LAYER_GAP = 280;
export const ROW_GAP = 140;

export function layeredPositions(entryId: string, nodeIds: readonly string[], edges: readonly GraphEdge[]): Record<string, { x: number; y: number }> {
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
  const positions: Record<string, { x: number; y: number }> = {};
  for (const id of nodeIds) {
    const layer = depth.get(id) ?? last;
    const row = rows.get(layer) ?? 0;
    rows.set(layer, row + 1);
    positions[id] = { x: layer * LAYER_GAP, y: row * ROW_GAP };
  }
  return positions;
}
