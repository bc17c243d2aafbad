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

  it('loops an edge to a node dragged above its source back up a lane right of the cards between', () => {
    const start = layout.nodes.get('start')!;
    const { drawn, placed } = plan({ finish: { x: start.x - 300, y: start.y } });
    const back = drawn.get(GRAPH.edges.findIndex((e) => e.to === 'finish'))!;
    expect(back.kind).toBe('loop');
    const join = card(placed, 'join');
    expect(back.laneX).toBeGreaterThan(Math.max(...[...placed.keys()].filter((id) => placed.get(id)!.y <= join.top).map((id) => card(placed, id).right)));
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
