/**
 * Which stored node positions the canvas draws. A graph keeps them in `metadata.layout.positions`;
 * nodes without one get the canvas's layout. Earlier BMAD-METHOD imports stored their own, layers
 * left to right, while the canvas draws every edge from a node's bottom to the next one's top:
 * positions still those (no person placed them, though a step may have been added since) are set
 * aside, and the canvas lays those graphs out itself (shared/bmad-method/positions.ts); positions a
 * person placed, or the canvas saved, are kept as they are.
 */
import { readNodePositions, type NodePosition } from '../../shared/bmad/graph-positions.ts';
import { hasLegacyImportLayout } from '../../shared/bmad-method/positions.ts';

export interface Placement {
  /** The positions to draw nodes at; nodes without one get the canvas's layout. */
  positions: Map<string, NodePosition>;
  /** The stored positions were an earlier import's own and are not drawn: the first edit saves the drawn ones instead. */
  importDerived: boolean;
}

export function placementOf(graph: unknown): Placement {
  return hasLegacyImportLayout(graph) ? { positions: new Map(), importDerived: true } : { positions: readNodePositions(graph), importDerived: false };
}

/** The placement of a graph's JSON text; an unreadable text has no positions. */
export function placementOfText(graphJson: string): Placement {
  try {
    return placementOf(JSON.parse(graphJson));
  } catch {
    return { positions: new Map(), importDerived: false };
  }
}
