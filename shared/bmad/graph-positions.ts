/**
 * Where the canvas keeps node positions: `metadata.layout.positions` of workflow.graph.json, a map
 * of node id → {x, y}. Graph nodes are closed objects, so positions cannot live on them; the
 * top-level `metadata` is the graph's one open object. Import, export and the Builder share this.
 */

export interface NodePosition {
  x: number;
  y: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isPosition = (value: unknown): value is NodePosition =>
  isRecord(value) && Number.isFinite(value.x) && Number.isFinite(value.y);

/** The stored positions of a parsed graph; anything malformed is ignored (the node gets laid out). */
export function readNodePositions(graph: unknown): Map<string, NodePosition> {
  const positions = new Map<string, NodePosition>();
  if (!isRecord(graph) || !isRecord(graph.metadata) || !isRecord(graph.metadata.layout)) return positions;
  const stored = graph.metadata.layout.positions;
  if (!isRecord(stored)) return positions;
  for (const [id, value] of Object.entries(stored)) {
    if (isPosition(value)) positions.set(id, { x: value.x, y: value.y });
  }
  return positions;
}

/**
 * A copy of the graph whose stored positions are `positions` (whole numbers), dropping ids that
 * are no longer nodes. Every other field, and every other key of `metadata`, is kept.
 */
export function withNodePositions(graph: Record<string, unknown>, positions: ReadonlyMap<string, NodePosition>): Record<string, unknown> {
  const nodeIds = new Set(
    (Array.isArray(graph.nodes) ? graph.nodes : []).flatMap((n: unknown) => (isRecord(n) && typeof n.id === 'string' ? [n.id] : [])),
  );
  const kept: Record<string, NodePosition> = {};
  for (const [id, p] of positions) {
    if (nodeIds.has(id)) kept[id] = { x: Math.round(p.x), y: Math.round(p.y) };
  }
  const metadata = isRecord(graph.metadata) ? graph.metadata : {};
  const layout = isRecord(metadata.layout) ? metadata.layout : {};
  return { ...graph, metadata: { ...metadata, layout: { ...layout, positions: kept } } };
}
