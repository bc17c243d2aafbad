/**
 * Chromium against the real product: imported graphs are drawn the way their edges run. A
 * BMAD-METHOD import (whose derived positions put the steps side by side) and a hand-made package
 * with no positions whose decision has a way straight to the step after a farewell step: every
 * edge leaves its source's bottom, enters its target's top below it, passes through no other
 * card, and no label covers a card or another label. Geometry read from the drawn page.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadFixture, loadPackageDir } from '../fixtures/packages.ts';
import { describeBrowser, newUser, startSuite, type Suite } from './harness.ts';

interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

interface Drawn {
  nodes: Array<{ id: string; box: Box }>;
  edges: Array<{ from: string; to: string; points: Array<{ x: number; y: number }> }>;
  labels: Array<{ text: string; box: Box }>;
}

/** The branching package with a second way out of its decision, straight to the step the two plans join at. */
function partyShapedPackage(): Map<string, string> {
  const files = loadFixture('branching');
  const graph = JSON.parse(files.get('workflow.graph.json')!) as { edges: unknown[] };
  graph.edges.push({ from: 'choose-track', to: 'join-plans', label: '[Q] Quit without any plan at all' });
  files.set('workflow.graph.json', `${JSON.stringify(graph, null, 2)}\n`);
  const decision = files.get('steps/02-decide-track.md')!;
  files.set('steps/02-decide-track.md', decision.replace('    isDefault: true\n', '    isDefault: true\n  - to: "join-plans"\n    label: "[Q] Quit without any plan at all"\n'));
  return files;
}

async function zipFile(files: Map<string, string>, name: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'graph-layout-'));
  const file = path.join(dir, name);
  await writeFile(file, zipSync(Object.fromEntries([...files].map(([n, text]) => [n, strToU8(text)]))));
  return file;
}

/** Imports a package through the projects page and opens its (first) workflow's graph. */
async function importAndOpen(page: Page, file: string, nodeCount: number): Promise<void> {
  await page.goto('/projects');
  await page.getByTestId('import-file').setInputFiles(file);
  await page.getByTestId('import-submit').click();
  await page.getByTestId('import-confirm').click();
  await page.getByTestId('import-done').waitFor();
  await page.getByTestId('import-open').click();
  await page.getByTestId('workflow-link').first().click();
  await page.getByTestId('graph-keys').waitFor();
  await expect.poll(() => page.getByTestId('graph-node').count()).toBe(nodeCount);
}

/** Cards, edge paths (sampled every few pixels, in page coordinates) and label boxes as drawn. */
async function drawn(page: Page, edgeCount: number): Promise<Drawn> {
  await expect.poll(() => page.locator('[data-testid="graph-edge"] path.svelte-flow__edge-path[d]').count()).toBe(edgeCount);
  await expect.poll(() => page.locator('.svelte-flow__edge-label').count()).toBe(edgeCount);
  return page.evaluate(() => {
    const boxOf = (el: Element) => {
      const r = el.getBoundingClientRect();
      return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
    };
    const nodes = [...document.querySelectorAll<HTMLElement>('[data-testid="graph-node"]')].map((el) => ({ id: el.dataset.nodeId ?? '', box: boxOf(el) }));
    const edges = [...document.querySelectorAll<SVGElement>('[data-testid="graph-edge"]')].map((el) => {
      const line = el.querySelector<SVGPathElement>('path.svelte-flow__edge-path')!;
      const matrix = line.getScreenCTM()!;
      const length = line.getTotalLength();
      const points: Array<{ x: number; y: number }> = [];
      for (let at = 0; at <= length; at += Math.max(1, length / 200)) points.push(line.getPointAtLength(at).matrixTransform(matrix));
      points.push(line.getPointAtLength(length).matrixTransform(matrix));
      return { from: el.getAttribute('data-from') ?? '', to: el.getAttribute('data-to') ?? '', points: points.map((p) => ({ x: p.x, y: p.y })) };
    });
    const labels = [...document.querySelectorAll('.svelte-flow__edge-label')].map((el) => ({ text: el.textContent ?? '', box: boxOf(el) }));
    return { nodes, edges, labels };
  });
}

const inside = (p: { x: number; y: number }, b: Box) => p.x > b.left + 1 && p.x < b.right - 1 && p.y > b.top + 1 && p.y < b.bottom - 1;
const intersects = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/** Every edge from its source's bottom middle down into its target's top middle, through no card; labels clear of cards and of each other. */
function expectDrawnTopToBottom(graph: Drawn): void {
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
    for (const point of edge.points) {
      for (const node of graph.nodes) expect(inside(point, node.box), `${name} passes through ${node.id}`).toBe(false);
    }
  }
  graph.labels.forEach((label, i) => {
    for (const node of graph.nodes) expect(intersects(label.box, node.box), `label "${label.text}" covers ${node.id}`).toBe(false);
    for (const other of graph.labels.slice(i + 1)) expect(intersects(label.box, other.box), `labels "${label.text}" and "${other.text}" overlap`).toBe(false);
  });
}

describeBrowser('imported graphs drawn top to bottom', () => {
  let suite: Suite;
  let context: BrowserContext;

  beforeAll(async () => {
    suite = await startSuite();
    context = await suite.newContext();
    const user = newUser('Layout');
    const registered = await context.request.post(`${suite.product.url}/api/auth/register`, { data: user, headers: { origin: suite.product.url } });
    expect(registered.status()).toBe(201);
  });

  afterAll(async () => {
    await context?.close();
    await suite?.close();
  });

  it('draws a BMAD-METHOD import step under step, and its first move saves the drawn places of every step', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 1400 });
    const folder = loadPackageDir(new URL('../fixtures/bmad-method/linear/', import.meta.url));
    await importAndOpen(page, await zipFile(folder, 'create-brief.zip'), 3);
    const graph = await drawn(page, 2);
    expectDrawnTopToBottom(graph);
    const boxes = new Map(graph.nodes.map((n) => [n.id, n.box]));

    // Moving the last step saves it where it was dropped and the others where they are drawn.
    const projectId = /\/projects\/([^/]+)\//u.exec(page.url())![1]!;
    const workflowId = /\/workflows\/([^/?#]+)/u.exec(page.url())![1]!;
    const last = graph.edges[1]!.to;
    const card = boxes.get(last)!;
    await page.mouse.move((card.left + card.right) / 2, card.top + 10);
    await page.mouse.down();
    await page.mouse.move((card.left + card.right) / 2 + 60, card.top + 40, { steps: 8 });
    await page.mouse.up();
    const stored = async () => {
      const response = await context.request.get(`${suite.product.url}/api/projects/${projectId}/workflows/${workflowId}`);
      const body = (await response.json()) as { data: { workflow: { revision: number; graphJson: string } } };
      return body.data.workflow;
    };
    // The drags settle for a moment before one save.
    await page.locator('[data-testid="workflow-revision"][data-revision="2"]').waitFor();
    expect((await stored()).revision).toBe(2);
    const positions = (JSON.parse((await stored()).graphJson) as { metadata: { layout: { positions: Record<string, { x: number; y: number }> } } }).metadata.layout.positions;
    expect(Object.keys(positions).sort()).toEqual(graph.nodes.map((n) => n.id).sort());
    const [first, second] = graph.edges.map((e) => e.from);
    expect(positions[second!]!.y).toBeGreaterThan(positions[first!]!.y);
    // The steps not moved stay where they were drawn.
    await page.reload();
    await page.getByTestId('graph-keys').waitFor();
    const again = await drawn(page, 2);
    const moved = new Map(again.nodes.map((n) => [n.id, n.box]));
    const offset = (id: string) => moved.get(id)!.top - moved.get(first!)!.top - (boxes.get(id)!.top - boxes.get(first!)!.top);
    expect(Math.abs(offset(second!))).toBeLessThan(2);
    await page.close();
  });

  it('draws a hand-made package without positions layer under layer, its labels clear of the cards and of each other', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 1400 });
    await importAndOpen(page, await zipFile(partyShapedPackage(), 'party-shaped.bmad'), 6);
    const graph = await drawn(page, 7);
    expectDrawnTopToBottom(graph);
    const boxes = new Map(graph.nodes.map((n) => [n.id, n.box]));
    // The step both plans lead to is under both, not on their row.
    expect(boxes.get('join-plans')!.top).toBeGreaterThan(boxes.get('beginner-plan')!.bottom);
    expect(boxes.get('join-plans')!.top).toBeGreaterThan(boxes.get('advanced-plan')!.bottom);
    await page.close();
  });
});
