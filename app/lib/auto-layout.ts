/**
 * Auto-layout on request: dagre's layered layout, top to bottom, with room for edge labels.
 * dagre is imported when the button is pressed, so the workflow page's first load stays small.
 * Returns top-left positions, as the canvas stores them.
 */
import type { NodePosition } from '../../shared/bmad/graph-positions.ts';
import { labelSize } from './edge-labels.ts';

export interface LayoutInput {
  nodes: ReadonlyArray<{ id: string }>;
  edges: ReadonlyArray<{ from: string; to: string; label: string }>;
  nodeWidth: number;
  nodeHeight: number;
}

export async function autoLayout(input: LayoutInput): Promise<Map<string, NodePosition>> {
  const { default: dagre } = await import('@dagrejs/dagre');
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: 50, ranksep: 70, edgesep: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  const ids = new Set(input.nodes.map((n) => n.id));
  for (const node of input.nodes) g.setNode(node.id, { width: input.nodeWidth, height: input.nodeHeight });
  input.edges.forEach((edge, i) => {
    if (!ids.has(edge.from) || !ids.has(edge.to)) return;
    g.setEdge(edge.from, edge.to, { ...labelSize(edge.label), labelpos: 'c' }, `e${i}`);
  });
  dagre.layout(g);
  const positions = new Map<string, NodePosition>();
  for (const node of input.nodes) {
    const placed = g.node(node.id);
    // dagre gives centres; the canvas stores top-left corners.
    positions.set(node.id, { x: Math.round(placed.x - input.nodeWidth / 2), y: Math.round(placed.y - input.nodeHeight / 2) });
  }
  return positions;
}
