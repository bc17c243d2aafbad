import { describe, expect, it } from 'vitest';
import { intersects, type Box } from '../../test/support/boxes.ts';
import { canvasLayout, edgeText } from './auto-layout.ts';
import { labelSize, spreadLabels } from './edge-labels.ts';
import { planEdges, type DrawnEdge } from './graph-edges.ts';
import { NODE_WIDTH, nodeHeight } from './graph-node.ts';
import type { LooseGraph, Point } from './workflow-model.ts';

/** A decision with two plans that join again, and a way straight from the decision to the join. */
const GRAPH: LooseGraph = {
  entryNodeId: 'start',
  nodes: [
    ['start', 'Start the session'],
    ['choose', 'Choose a track'],
    ['beginner', 'Beginner plan'],
    ['advanced', 'Advanced plan'],
    ['join', 'Join the plans'],
    ['finish', 'Finish'],
  ].map(([id, title], index) => ({ id: id!, type: 'step' as const, file: `steps/${id}.md`, title: title!, agentId: '', index })),
  edges: (
    [
      ['start', 'choose', 'next'],
      ['choose', 'beginner', '[B] Beginner'],
      ['choose', 'advanced', '[A] Advanced'],
      ['beginner', 'join', 'next'],
      ['advanced', 'join', 'next'],
      ['choose', 'join', '[Q] Quit without a plan'],
      ['join', 'finish', 'done'],
    ] as const
  ).map(([from, to, label], index) => ({ id: `e${index}`, from, to, label, isDefault: false, conditionText: '', index })),
};

const layout = canvasLayout(GRAPH);
const heights = new Map(GRAPH.nodes.map((n) => [n.id, nodeHeight(n)]));
const edges = GRAPH.edges.map((e) => ({ index: e.index, from: e.from, to: e.to, text: edgeText(e) }));

function plan(moves: Record<string, Point> = {}): { drawn: Map<number, DrawnEdge>; placed: Map<string, Point> } {
  const placed = new Map(GRAPH.nodes.map((n) => [n.id, moves[n.id] ?? layout.nodes.get(n.id)!]));
  const drawn = planEdges({ edges, placed, heights, layout, nodeWidth: NODE_WIDTH });
  return { drawn: new Map(drawn.map((d) => [d.index, d])), placed };
}

const card = (placed: Map<string, Point>, id: string): Box => {
  const p = placed.get(id)!;
  return { left: p.x, top: p.y, right: p.x + NODE_WIDTH, bottom: p.y + heights.get(id)! };
};

const labelBox = (d: DrawnEdge): Box => {
  const size = labelSize(edgeText(GRAPH.edges[d.index]!));
  return { left: d.label.x - size.width / 2, top: d.label.y - size.height / 2, right: d.label.x + size.width / 2, bottom: d.label.y + size.height / 2 };
};

function expectLabelsClear(drawn: Map<number, DrawnEdge>, placed: Map<string, Point>): void {
  const all = [...drawn.values()];
  all.forEach((d, i) => {
    for (const id of placed.keys()) expect(intersects(labelBox(d), card(placed, id)), `label of edge ${d.index} covers ${id}`).toBe(false);
    for (const other of all.slice(i + 1)) expect(intersects(labelBox(d), labelBox(other)), `labels of edges ${d.index} and ${other.index}`).toBe(false);
  });
}

/** The straight pieces of a drawn `step`, `loop` or `detour` edge. */
function piecesOf(d: DrawnEdge, placed: Map<string, Point>, edge: { from: string; to: string }): Box[] {
  const from = card(placed, edge.from);
  const to = card(placed, edge.to);
  const sx = (from.left + from.right) / 2;
  const tx = (to.left + to.right) / 2;
  const points =
    d.kind === 'loop'
      ? [
          { x: from.right, y: from.top + 0.7 * (from.bottom - from.top) },
          { x: d.laneX, y: from.top + 0.7 * (from.bottom - from.top) },
          { x: d.laneX, y: to.top + 0.3 * (to.bottom - to.top) },
          { x: to.right, y: to.top + 0.3 * (to.bottom - to.top) },
        ]
      : d.kind === 'detour'
        ? [
            { x: sx, y: from.bottom },
            { x: sx, y: d.channelY },
            { x: d.laneX, y: d.channelY },
            { x: d.laneX, y: d.entryY },
            { x: tx, y: d.entryY },
            { x: tx, y: to.top },
          ]
        : [
            { x: sx, y: from.bottom },
            { x: sx, y: d.channelY },
            { x: tx, y: d.channelY },
            { x: tx, y: to.top },
          ];
  return points.slice(1).map((p, i) => {
    const q = points[i]!;
    return { left: Math.min(p.x, q.x) - 0.5, right: Math.max(p.x, q.x) + 0.5, top: Math.min(p.y, q.y) - 0.5, bottom: Math.max(p.y, q.y) + 0.5 };
  });
}

/** No piece of the edge runs through a card: the first leaves its source, the last enters its target. */
function expectThroughNoCard(d: DrawnEdge, placed: Map<string, Point>, edge: { from: string; to: string } = GRAPH.edges[d.index]!): void {
  const pieces = piecesOf(d, placed, edge);
  pieces.forEach((piece, i) => {
    for (const id of placed.keys()) {
      if ((i === 0 && id === edge.from) || (i === pieces.length - 1 && id === edge.to)) continue;
      expect(intersects(piece, card(placed, id)), `${edge.from} → ${edge.to} (${d.kind}) runs through ${id}`).toBe(false);
    }
  });
}

describe('planEdges', () => {
  it('takes the layout’s route for every edge while each node is where the layout put it', () => {
    const { drawn, placed } = plan();
    for (const edge of GRAPH.edges) {
      const d = drawn.get(edge.index)!;
      expect(d.kind, `${edge.from} → ${edge.to}`).toBe('routed');
      expect(d.bends).toEqual(layout.routes.get(edge.index)!.bends);
    }
    expectLabelsClear(drawn, placed);
  });

  it('steps a dragged node’s edges down to it through a channel clear of the cards, and keeps every other edge’s route', () => {
    // The join dragged far right and further down: its three edges in and its edge out are re-planned.
    const at = layout.nodes.get('join')!;
    const { drawn, placed } = plan({ join: { x: at.x + 420, y: at.y + 60 } });
    const touching = GRAPH.edges.filter((e) => e.from === 'join' || e.to === 'join');
    for (const edge of GRAPH.edges) {
      const d = drawn.get(edge.index)!;
      if (!touching.includes(edge)) {
        expect(d.kind, `${edge.from} → ${edge.to} keeps its route`).toBe('routed');
        expect(d.bends).toEqual(layout.routes.get(edge.index)!.bends);
        continue;
      }
      expect(d.kind, `${edge.from} → ${edge.to}`).toBe('step');
      const from = card(placed, edge.from);
      const to = card(placed, edge.to);
      // The crossing lies between the source's bottom and the target's top, and runs over no card.
      expect(d.channelY).toBeGreaterThan(from.bottom);
      expect(d.channelY).toBeLessThan(to.top);
      const sx = from.left + NODE_WIDTH / 2;
      const tx = to.left + NODE_WIDTH / 2;
      const crossing: Box = { left: Math.min(sx, tx), right: Math.max(sx, tx), top: d.channelY - 1, bottom: d.channelY + 1 };
      const down: Box = { left: sx - 1, right: sx + 1, top: from.bottom, bottom: d.channelY };
      const into: Box = { left: tx - 1, right: tx + 1, top: d.channelY, bottom: to.top };
      for (const id of placed.keys()) {
        if (id === edge.from || id === edge.to) continue;
        for (const part of [crossing, down, into]) expect(intersects(part, card(placed, id)), `${edge.from} → ${edge.to} crosses ${id}`).toBe(false);
      }
    }
    expectLabelsClear(drawn, placed);
  });

  it('loops an edge to a node dragged beside the start back round the cards, through none of them', () => {
    // The finish dragged left of the start: the way into its right side runs through the start,
    // so the loop goes round from the join's bottom to the finish's top instead.
    const start = layout.nodes.get('start')!;
    const { drawn, placed } = plan({ finish: { x: start.x - 300, y: start.y } });
    const back = drawn.get(GRAPH.edges.findIndex((e) => e.to === 'finish'))!;
    expect(back.kind).toBe('detour');
    expectThroughNoCard(back, placed);
    expectLabelsClear(drawn, placed);
  });

  it('takes a loop through no card where a lane right of every card would cross the one beside its source', () => {
    // A way back from the left plan (the advanced one) to the start: right of every card, the way out to the lane
    // would run through the other plan beside it.
    const looped: LooseGraph = { ...GRAPH, edges: [...GRAPH.edges, { id: 'back', from: 'advanced', to: 'start', label: '[R] Start over', isDefault: false, conditionText: '', index: GRAPH.edges.length }] };
    const laid = canvasLayout(looped);
    const placed = new Map(looped.nodes.map((n) => [n.id, laid.nodes.get(n.id)!]));
    const back = looped.edges.at(-1)!;
    const drawn = planEdges({ edges: [...edges, { index: back.index, from: back.from, to: back.to, text: edgeText(back) }], placed, heights, layout: laid, nodeWidth: NODE_WIDTH });
    const d = drawn.find((e) => e.index === back.index)!;
    // The other plan is on the source's row, right of it.
    expect(card(placed, 'beginner').top).toBeLessThan(card(placed, 'advanced').bottom);
    expect(card(placed, 'beginner').left).toBeGreaterThan(card(placed, 'advanced').right);
    expect(d.kind).not.toBe('routed');
    expectThroughNoCard(d, placed, back);
  });

  it('re-routes an edge whose layout route a dragged card now covers, and keeps the routes no card covers', () => {
    // The advanced plan dropped onto the middle of the way from the decision to the join (left of the plans).
    const quit = GRAPH.edges.find((e) => e.label.startsWith('[Q]'))!;
    const bends = layout.routes.get(quit.index)!.bends;
    const middle = bends[Math.floor(bends.length / 2)]!;
    const moves = { advanced: { x: middle.x - NODE_WIDTH / 2, y: middle.y - heights.get('advanced')! / 2 } };
    const { drawn, placed } = plan(moves);
    const d = drawn.get(quit.index)!;
    expect(d.kind).not.toBe('routed');
    expectThroughNoCard(d, placed);
    for (const edge of GRAPH.edges) {
      if (edge === quit || edge.from === 'advanced' || edge.to === 'advanced') continue;
      expect(drawn.get(edge.index)!.kind, `${edge.from} → ${edge.to} keeps its route`).toBe('routed');
    }
    expectLabelsClear(drawn, placed);
  });
});

describe('spreadLabels', () => {
  it('moves a label off a card it would cover, and never moves the card', () => {
    const cardBox = { id: 'card', x: 100, y: 100, width: 180, height: 60 };
    const placed = spreadLabels([{ id: 'a', x: 100, y: 100, width: 60, height: 18 }], [cardBox]);
    const y = placed.get('a')!.y;
    expect(Math.abs(y - 100)).toBeGreaterThanOrEqual(30 + 9);
    expect(placed.has('card')).toBe(false);
  });
});
