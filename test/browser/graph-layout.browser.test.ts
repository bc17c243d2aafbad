/**
 * Chromium against the real product: imported graphs are drawn the way their edges run. A
 * BMAD-METHOD import (which stores no positions), a package an earlier import left its
 * left-to-right positions in, and a hand-made package with no positions whose decision has a way
 * straight to the step after a farewell step: every edge leaves its source's bottom, enters its
 * target's top below it, passes through no other card, and no label covers a card or another
 * label, also after a step is dragged (its edges step down to it; the others keep their routes).
 * Geometry read from the drawn page (graph-geometry.ts).
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { legacyImportPositions } from '../../shared/bmad-method/positions.ts';
import { loadFixture, loadPackageDir } from '../fixtures/packages.ts';
import { drawnGraph, expectDrawnTopToBottom, type Drawn } from './graph-geometry.ts';
import { describeBrowser, newUser, startSuite, type Suite } from './harness.ts';

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

/** The canvas's cards, edge paths and labels as drawn. */
const drawn = (page: Page, edgeCount: number): Promise<Drawn> =>
  drawnGraph(page.getByTestId('workflow-graph'), '[data-testid="graph-node"]', '[data-testid="graph-edge"]', edgeCount);

type StoredGraph = { metadata?: { layout?: { positions?: Record<string, { x: number; y: number }> } } };

/** The workflow the page shows, as stored. */
async function storedWorkflow(context: BrowserContext, base: string, page: Page): Promise<{ revision: number; graph: StoredGraph }> {
  const projectId = /\/projects\/([^/]+)\//u.exec(page.url())![1]!;
  const workflowId = /\/workflows\/([^/?#]+)/u.exec(page.url())![1]!;
  const response = await context.request.get(`${base}/api/projects/${projectId}/workflows/${workflowId}`);
  const body = (await response.json()) as { data: { workflow: { revision: number; graphJson: string } } };
  return { revision: body.data.workflow.revision, graph: JSON.parse(body.data.workflow.graphJson) as StoredGraph };
}

/** Drags a card by (dx, dy) screen pixels. */
async function drag(page: Page, box: Drawn['nodes'][number]['box'], dx: number, dy: number): Promise<void> {
  await page.mouse.move((box.left + box.right) / 2, box.top + 10);
  await page.mouse.down();
  await page.mouse.move((box.left + box.right) / 2 + dx, box.top + 10 + dy, { steps: 8 });
  await page.mouse.up();
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

  it('draws a BMAD-METHOD import step under step without storing positions, and a move saves the moved step where it was dropped', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 1400 });
    const folder = loadPackageDir(new URL('../fixtures/bmad-method/linear/', import.meta.url));
    await importAndOpen(page, await zipFile(folder, 'create-brief.zip'), 3);
    const graph = await drawn(page, 2);
    expectDrawnTopToBottom(graph);
    const base = suite.product.url;
    // The canvas lays the graph out itself: the import stores no positions for it.
    expect((await storedWorkflow(context, base, page)).graph.metadata?.layout?.positions).toBeUndefined();

    // Moving the last step saves it where it was dropped; the others stay laid out where they are drawn.
    const boxes = new Map(graph.nodes.map((n) => [n.id, n.box]));
    const [first, second] = graph.edges.map((e) => e.from);
    const last = graph.edges[1]!.to;
    await drag(page, boxes.get(last)!, 60, 30);
    await page.locator('[data-testid="workflow-revision"][data-revision="2"]').waitFor();
    const positions = (await storedWorkflow(context, base, page)).graph.metadata?.layout?.positions ?? {};
    expect(Object.keys(positions)).toEqual([last]);
    await page.reload();
    await page.getByTestId('graph-keys').waitFor();
    const again = await drawn(page, 2);
    // The edge into the moved step still runs from the bottom of one card into the top of the other.
    expectDrawnTopToBottom(again);
    const moved = new Map(again.nodes.map((n) => [n.id, n.box]));
    const offset = (id: string) => moved.get(id)!.top - moved.get(first!)!.top - (boxes.get(id)!.top - boxes.get(first!)!.top);
    expect(Math.abs(offset(second!))).toBeLessThan(2);
    await page.close();
  });

  it('draws a package an earlier import left its left-to-right positions in step under step, and its first move saves the drawn places of every step', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 1400 });
    const files = loadFixture('branching');
    const graphJson = JSON.parse(files.get('workflow.graph.json')!) as { entryNodeId: string; nodes: Array<{ id: string }>; edges: Array<{ from: string; to: string }> };
    const old = legacyImportPositions(graphJson.entryNodeId, graphJson.nodes.map((n) => n.id), graphJson.edges);
    // What an earlier import stored: every step of a layer side by side, left to right.
    expect(old['beginner-plan']!.y).not.toBe(old['advanced-plan']!.y);
    expect(old['choose-track']!.x).toBeGreaterThan(old['collect-background']!.x);
    files.set('workflow.graph.json', `${JSON.stringify({ ...graphJson, metadata: { source: 'bmad-method', layout: { positions: old } } }, null, 2)}\n`);
    // Its own name: the party-shaped package below is the same course.
    files.set('bmad.json', files.get('bmad.json')!.replace('"course-placement"', '"course-placement-imported-before"'));
    await importAndOpen(page, await zipFile(files, 'imported-before.bmad'), 6);
    const graph = await drawn(page, 6);
    expectDrawnTopToBottom(graph);

    const boxes = new Map(graph.nodes.map((n) => [n.id, n.box]));
    await drag(page, boxes.get('finish')!, 60, 30);
    await page.locator('[data-testid="workflow-revision"][data-revision="2"]').waitFor();
    const positions = (await storedWorkflow(context, suite.product.url, page)).graph.metadata!.layout!.positions!;
    expect(Object.keys(positions).sort()).toEqual(graph.nodes.map((n) => n.id).sort());
    // Saved as drawn, top to bottom: the left-to-right places are gone.
    expect(positions['choose-track']!.y).toBeGreaterThan(positions['collect-background']!.y);
    expect(positions['beginner-plan']!.y).toBe(positions['advanced-plan']!.y);
    await page.close();
  });

  it('draws a hand-made package without positions layer under layer, its labels clear of the cards and of each other, also after a step is dragged', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 1400 });
    await importAndOpen(page, await zipFile(partyShapedPackage(), 'party-shaped.bmad'), 6);
    const graph = await drawn(page, 7);
    expectDrawnTopToBottom(graph);
    const boxes = new Map(graph.nodes.map((n) => [n.id, n.box]));
    // The step both plans lead to is under both, not on their row.
    expect(boxes.get('join-plans')!.top).toBeGreaterThan(boxes.get('beginner-plan')!.bottom);
    expect(boxes.get('join-plans')!.top).toBeGreaterThan(boxes.get('advanced-plan')!.bottom);

    // Dragged right and down: the edges into and out of it step down to it and on, clear of the
    // cards, while every other edge keeps the route it had, both as dropped and once saved.
    await drag(page, boxes.get('join-plans')!, 320, 40);
    const untouched = graph.edges.filter((e) => e.from !== 'join-plans' && e.to !== 'join-plans');
    const routeOf = (g: Drawn, e: { from: string; to: string }) => g.edges.find((x) => x.from === e.from && x.to === e.to)!.d;
    const expectFollowed = (g: Drawn) => {
      const at = new Map(g.nodes.map((n) => [n.id, n.box]));
      expect(at.get('join-plans')!.left - boxes.get('join-plans')!.left).toBeGreaterThan(200);
      expectDrawnTopToBottom(g);
      for (const e of untouched) expect(routeOf(g, e), `${e.from} → ${e.to} keeps its route`).toBe(routeOf(graph, e));
    };
    expectFollowed(await drawn(page, 7));
    await page.locator('[data-testid="workflow-revision"][data-revision="2"]').waitFor();
    expectFollowed(await drawn(page, 7));
    await page.close();
  });
});
