/**
 * Which stored node positions the canvas draws. A graph keeps them in `metadata.layout.positions`;
 * the BMAD-METHOD import derives its own there, layers left to right, while the canvas draws
 * every edge from a node's bottom to the next one's top. Positions still exactly the import's
 * (no person placed them) are set aside, and the canvas lays those graphs out itself; positions a
 * person placed, or the canvas saved, are kept as they are.
 */
import type { GraphEdge } from '../../shared/bmad/models.ts';
import { readNodePositions, type NodePosition } from '../../shared/bmad/graph-positions.ts';
import { layeredPositions } from '../../shared/bmad-method/positions.ts';

export interface Placement {
  /** The positions to draw nodes at; nodes without one get the canvas's layout. */
  positions: Map<string, NodePosition>;
  /** The stored positions were the import's own and are not drawn: the first edit saves the drawn ones instead. */
  importDerived: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const ids = (list: unknown, key: string): string[] =>
  (Array.isArray(list) ? list : []).flatMap((item: unknown) => (isRecord(item) && typeof item[key] === 'string' ? [item[key]] : []));

/** Positions the BMAD-METHOD import would derive for this graph, when it came from that import. */
function importPositions(graph: Record<string, unknown>): Record<string, NodePosition> | null {
  if (!isRecord(graph.metadata) || graph.metadata.source !== 'bmad-method' || typeof graph.entryNodeId !== 'string') return null;
  const edges = (Array.isArray(graph.edges) ? graph.edges : []).filter(
    (e: unknown): e is GraphEdge => isRecord(e) && typeof e.from === 'string' && typeof e.to === 'string',
  );
  return layeredPositions(graph.entryNodeId, ids(graph.nodes, 'id'), edges);
}

export function placementOf(graph: unknown): Placement {
  const positions = readNodePositions(graph);
  if (positions.size === 0 || !isRecord(graph)) return { positions, importDerived: false };
  const derived = importPositions(graph);
  const same = derived !== null && [...positions].every(([id, p]) => derived[id]?.x === p.x && derived[id]?.y === p.y);
  return same ? { positions: new Map(), importDerived: true } : { positions, importDerived: false };
}

/** The placement of a graph's JSON text; an unreadable text has no positions. */
export function placementOfText(graphJson: string): Placement {
  try {
    return placementOf(JSON.parse(graphJson));
  } catch {
    return { positions: new Map(), importDerived: false };
  }
}
