/**
 * A drawn Svelte Flow graph's geometry, read from the page (cards, edge paths sampled every few
 * pixels, label boxes; page coordinates), and the checks that no edge runs through a card and no
 * label lies on a card or on another label, and that it reads top to bottom: every edge from its
 * source's bottom middle down into its target's top middle. The editor's canvas and the Workbench's graph diff alike.
 */
import type { Locator } from 'playwright-core';
import { expect } from 'vitest';
import { intersects, type Box } from '../support/boxes.ts';

export interface Drawn {
  nodes: Array<{ id: string; box: Box }>;
  edges: Array<{ from: string; to: string; d: string; points: Array<{ x: number; y: number }> }>;
  labels: Array<{ text: string; box: Box }>;
}

/** The cards (`nodeSelector`, named by `data-node-id`) and edges (`edgeSelector`, with `data-from`/`data-to`) inside `root`. */
export async function drawnGraph(root: Locator, nodeSelector: string, edgeSelector: string, edgeCount: number): Promise<Drawn> {
  await expect.poll(() => root.locator(`${edgeSelector} path.svelte-flow__edge-path[d]`).count()).toBe(edgeCount);
  await expect.poll(() => root.locator('.svelte-flow__edge-label').count()).toBe(edgeCount);
  return root.evaluate(
    (el, [nodeSel, edgeSel]) => {
      const boxOf = (e: Element) => {
        const r = e.getBoundingClientRect();
        return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
      };
      const nodes = [...el.querySelectorAll<HTMLElement>(nodeSel!)].map((n) => ({ id: n.dataset.nodeId ?? '', box: boxOf(n) }));
      const edges = [...el.querySelectorAll<SVGElement>(edgeSel!)].map((edge) => {
        const line = edge.querySelector<SVGPathElement>('path.svelte-flow__edge-path')!;
        const matrix = line.getScreenCTM()!;
        const length = line.getTotalLength();
        const points: Array<{ x: number; y: number }> = [];
        for (let at = 0; at <= length; at += Math.max(1, length / 200)) points.push(line.getPointAtLength(at).matrixTransform(matrix));
        points.push(line.getPointAtLength(length).matrixTransform(matrix));
        return {
          from: edge.getAttribute('data-from') ?? '',
          to: edge.getAttribute('data-to') ?? '',
          d: line.getAttribute('d') ?? '',
          points: points.map((p) => ({ x: p.x, y: p.y })),
        };
      });
      const labels = [...el.querySelectorAll('.svelte-flow__edge-label')].map((l) => ({ text: l.textContent ?? '', box: boxOf(l) }));
      return { nodes, edges, labels };
    },
    [nodeSelector, edgeSelector] as const,
  );
}

const inside = (p: { x: number; y: number }, b: Box) => p.x > b.left + 1 && p.x < b.right - 1 && p.y > b.top + 1 && p.y < b.bottom - 1;

/** No edge passes through a card (its own ends included: it leaves and enters at their borders), no label covers a card or another label. */
export function expectThroughNoCard(graph: Drawn): void {
  for (const edge of graph.edges) {
    for (const point of edge.points) {
      for (const node of graph.nodes) expect(inside(point, node.box), `${edge.from} → ${edge.to} passes through ${node.id}`).toBe(false);
    }
  }
  graph.labels.forEach((label, i) => {
    for (const node of graph.nodes) expect(intersects(label.box, node.box), `label "${label.text}" covers ${node.id}`).toBe(false);
    for (const other of graph.labels.slice(i + 1)) expect(intersects(label.box, other.box), `labels "${label.text}" and "${other.text}" overlap`).toBe(false);
  });
}

/** Every edge from its source's bottom middle down into its target's top middle, through no card; labels clear of cards and of each other. */
export function expectDrawnTopToBottom(graph: Drawn): void {
  const boxes = new Map(graph.nodes.map((n) => [n.id, n.box]));
  for (const edge of graph.edges) {
    const name = `${edge.from} → ${edge.to}`;
    const from = boxes.get(edge.from)!;
    const to = boxes.get(edge.to)!;
    expect(to.top, `${name}: the target is below the source`).toBeGreaterThan(from.bottom);
    const start = edge.points[0]!;
    const end = edge.points.at(-1)!;
    expect(Math.abs(start.x - (from.left + from.right) / 2), `${name} leaves the middle of the source`).toBeLessThan(4);
    expect(Math.abs(start.y - from.bottom), `${name} leaves the bottom of the source`).toBeLessThan(8);
    expect(Math.abs(end.x - (to.left + to.right) / 2), `${name} enters the middle of the target`).toBeLessThan(4);
    expect(Math.abs(end.y - to.top), `${name} enters the top of the target`).toBeLessThan(8);
  }
  expectThroughNoCard(graph);
}
