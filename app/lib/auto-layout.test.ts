import { describe, expect, it } from 'vitest';
import { intersects, type Box } from '../../test/support/boxes.ts';
import { canvasLayout, type Layout } from './auto-layout.ts';
import { labelSize } from './edge-labels.ts';
import { NODE_WIDTH, nodeHeight } from './graph-node.ts';
import type { LooseGraph } from './workflow-model.ts';

function graphOf(nodes: Array<[string, string]>, edges: Array<[string, string, string, boolean?]>): LooseGraph {
  return {
    entryNodeId: nodes[0]![0],
    nodes: nodes.map(([id, title], index) => ({ id, type: 'step', file: `steps/${id}.md`, title, agentId: '', index })),
    edges: edges.map(([from, to, label, isDefault], index) => ({ id: `e${index}`, from, to, label, isDefault: isDefault === true, conditionText: '', index })),
  };
}

function nodeBoxes(graph: LooseGraph, layout: Layout): Map<string, Box> {
  return new Map(
    graph.nodes.map((n) => {
      const at = layout.nodes.get(n.id)!;
      return [n.id, { left: at.x, top: at.y, right: at.x + NODE_WIDTH, bottom: at.y + nodeHeight(n) }];
    }),
  );
}

/** A hand-made party package's shape: a decision with two ways out, one of them through a farewell step to the same end. */
const PARTY = graphOf(
  [
    ['agent-loading', 'Step 1: Agent Loading and Party Mode Initialization'],
    ['discussion', 'Step 2: Discussion Orchestration and Multi-Agent Conversation'],
    ['graceful-exit', 'Step 3: Graceful Exit and Party Mode Conclusion'],
    ['wrap-up', '收尾与纪要'],
  ],
  [
    ['agent-loading', 'discussion', '[C] Continue'],
    ['discussion', 'graceful-exit', '[E] Exit Party Mode', true],
    ['discussion', 'wrap-up', '[Q] Quit without farewells'],
    ['graceful-exit', 'wrap-up', 'next'],
  ],
);

describe('canvasLayout', () => {
  it('puts every target below its source, so each edge runs from a bottom to a top (none on one row)', () => {
    const layout = canvasLayout(PARTY);
    const boxes = nodeBoxes(PARTY, layout);
    for (const edge of PARTY.edges) {
      expect(boxes.get(edge.to)!.top, `${edge.from} → ${edge.to}`).toBeGreaterThan(boxes.get(edge.from)!.bottom);
    }
    expect(boxes.get('wrap-up')!.top).toBeGreaterThan(boxes.get('graceful-exit')!.bottom);
  });

  it('routes each edge and its label clear of the nodes it does not join, and no two labels meet', () => {
    const layout = canvasLayout(PARTY);
    const boxes = nodeBoxes(PARTY, layout);
    const labels: Box[] = [];
    for (const edge of PARTY.edges) {
      const route = layout.routes.get(edge.index)!;
      expect(route, `${edge.from} → ${edge.to}`).toBeDefined();
      const from = boxes.get(edge.from)!;
      const to = boxes.get(edge.to)!;
      // The drawn line: the source's bottom middle, the bends, the target's top middle.
      const points = [{ x: (from.left + from.right) / 2, y: from.bottom }, ...route.bends, { x: (to.left + to.right) / 2, y: to.top }];
      for (let i = 1; i < points.length; i += 1) {
        expect(points[i]!.y, 'runs downwards').toBeGreaterThanOrEqual(points[i - 1]!.y);
        // Each stretch of the curve stays inside the box of the two points it joins.
        const stretch = {
          left: Math.min(points[i - 1]!.x, points[i]!.x),
          right: Math.max(points[i - 1]!.x, points[i]!.x) + 0.01,
          top: points[i - 1]!.y,
          bottom: points[i]!.y,
        };
        for (const [id, box] of boxes) {
          if (id === edge.from || id === edge.to) continue;
          expect(intersects(stretch, box), `${edge.from} → ${edge.to} crosses ${id}`).toBe(false);
        }
      }
      const size = labelSize(edge.isDefault ? `${edge.label} · default` : edge.label);
      const label = { left: route.label.x - size.width / 2, right: route.label.x + size.width / 2, top: route.label.y - size.height / 2, bottom: route.label.y + size.height / 2 };
      for (const [id, box] of boxes) expect(intersects(label, box), `label "${edge.label}" covers ${id}`).toBe(false);
      for (const other of labels) expect(intersects(label, other), `label "${edge.label}" covers another label`).toBe(false);
      labels.push(label);
    }
  });

  it('lays a two-step import top to bottom, the second step under the first', () => {
    const graph = graphOf(
      [
        ['step-02-discussion', 'Step 2: Discussion Orchestration and Multi-Agent Conversation'],
        ['step-03-graceful-exit', 'Step 3: Graceful Exit and Party Mode Conclusion'],
      ],
      [['step-02-discussion', 'step-03-graceful-exit', 'Exit Party Mode']],
    );
    const layout = canvasLayout(graph);
    const boxes = nodeBoxes(graph, layout);
    expect(boxes.get('step-03-graceful-exit')!.top).toBeGreaterThan(boxes.get('step-02-discussion')!.bottom);
    expect(boxes.get('step-03-graceful-exit')!.left).toBe(boxes.get('step-02-discussion')!.left);
  });

  it('gives a loop back to an earlier step no route: the canvas draws it up its own lane', () => {
    const graph = graphOf(
      [
        ['a', 'A'],
        ['b', 'B'],
      ],
      [
        ['a', 'b', 'next'],
        ['b', 'a', 'again'],
      ],
    );
    const layout = canvasLayout(graph);
    expect(layout.routes.has(0)).toBe(true);
    expect(layout.routes.has(1)).toBe(false);
  });
});

describe('nodeHeight', () => {
  it('grows with the lines the title wraps to, wide characters counting two', () => {
    expect(nodeHeight({ id: 'a', title: 'Step 2: Discussion Orchestration and Multi-Agent Conversation' })).toBeGreaterThan(nodeHeight({ id: 'a', title: 'Short' }));
    expect(nodeHeight({ id: 'a', title: '收尾与纪要收尾与纪要' })).toBeGreaterThan(nodeHeight({ id: 'a', title: 'abcdefghij' }));
  });
});
