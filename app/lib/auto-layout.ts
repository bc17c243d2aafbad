/**
 * The canvas's layered layout: dagre, top to bottom, with room for edge labels. One algorithm for
 * both the Auto-layout button and the nodes a graph stores no position for, so pressing the
 * button on a graph drawn by it changes nothing. This module (with dagre) loads with the drawn
 * graph, never with a page. Returns top-left positions, as the canvas stores them, and for each
 * edge the bends dagre routed it through (clear of the other nodes) and where its label goes.
 */
import dagre from '@dagrejs/dagre';
import type { NodePosition } from '../../shared/bmad/graph-positions.ts';
import { t } from './i18n/i18n.svelte.ts';
import './i18n/page-words.ts';
import { labelSize } from './edge-labels.ts';
import { NODE_WIDTH, nodeHeight } from './graph-node.ts';
import type { LooseEdge, LooseGraph } from './workflow-model.ts';

/** The text the canvas draws on an edge: its label (or a stand-in), marked when it is the default way. */
export function edgeText(edge: Pick<LooseEdge, 'label' | 'isDefault'>): string {
  const plain = edge.label || t('pageWords.graph.edgeNoLabel');
  return edge.isDefault ? t('pageWords.graph.edgeDefaultLabel', { label: plain }) : plain;
}

export interface LayoutInput {
  /** `height`: the node card's height (px); `nodeHeight` when absent. */
  nodes: ReadonlyArray<{ id: string; height?: number }>;
  /** `label`: the text drawn on the edge; `index`: the edge's place in the graph, which routes are keyed by. */
  edges: ReadonlyArray<{ from: string; to: string; label: string; index?: number }>;
  nodeWidth: number;
  nodeHeight: number;
}

export interface EdgeRoute {
  /** Bends between the two ends (flow coordinates), top to bottom; the ends are the nodes' handles. */
  bends: NodePosition[];
  /** Centre of the edge's label. */
  label: NodePosition;
}

export interface Layout {
  nodes: Map<string, NodePosition>;
  /** Only edges that run downwards (from a node to one on a lower row). */
  routes: Map<number, EdgeRoute>;
}

export function layeredLayout(input: LayoutInput): Layout {
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: 50, ranksep: 70, edgesep: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  const ids = new Set(input.nodes.map((n) => n.id));
  const heights = new Map(input.nodes.map((n) => [n.id, n.height ?? input.nodeHeight]));
  for (const node of input.nodes) g.setNode(node.id, { width: input.nodeWidth, height: heights.get(node.id)! });
  input.edges.forEach((edge, i) => {
    if (!ids.has(edge.from) || !ids.has(edge.to)) return;
    g.setEdge(edge.from, edge.to, { ...labelSize(edge.label), labelpos: 'c' }, `e${i}`);
  });
  dagre.layout(g);
  const nodes = new Map<string, NodePosition>();
  for (const node of input.nodes) {
    const placed = g.node(node.id);
    // dagre gives centres; the canvas stores top-left corners.
    nodes.set(node.id, { x: Math.round(placed.x - input.nodeWidth / 2), y: Math.round(placed.y - heights.get(node.id)! / 2) });
  }
  const routes = new Map<number, EdgeRoute>();
  input.edges.forEach((edge, i) => {
    if (!ids.has(edge.from) || !ids.has(edge.to) || edge.from === edge.to) return;
    const from = g.node(edge.from);
    const to = g.node(edge.to);
    if (to.y <= from.y) return;
    const routed = g.edge(edge.from, edge.to, `e${i}`) as { points?: NodePosition[]; x?: number; y?: number };
    // dagre's first and last points sit on the nodes' borders; the canvas ends edges at the handles.
    const bends = (routed.points ?? []).slice(1, -1).map((p: NodePosition) => ({ x: p.x, y: p.y }));
    routes.set(edge.index ?? i, { bends, label: { x: routed.x ?? (from.x + to.x) / 2, y: routed.y ?? (from.y + to.y) / 2 } });
  });
  return { nodes, routes };
}

/** The layout of a workflow graph as the canvas draws it: its cards' heights and its edges' label texts. */
export function canvasLayout(graph: LooseGraph): Layout {
  return layeredLayout({
    nodes: graph.nodes.map((n) => ({ id: n.id, height: nodeHeight(n) })),
    edges: graph.edges.map((e) => ({ from: e.from, to: e.to, label: edgeText(e), index: e.index })),
    nodeWidth: NODE_WIDTH,
    nodeHeight: nodeHeight({ title: '', id: '' }),
  });
}

/** Auto-layout on request: the canvas layout's node positions. */
export function autoLayout(input: LayoutInput): Map<string, NodePosition> {
  return layeredLayout(input).nodes;
}
