/**
 * Chromium against the real product: imported graphs are drawn the way their edges run. A
 * BMAD-METHOD import (which stores no positions), a package an earlier import left its
 * left-to-right positions in, and a hand-made package with no positions whose decision has a way
 * straight to the step after a farewell step: every edge leaves its source's bottom, enters its
 * target's top below it, passes through no other card, and no label covers a card or another
 * label, also after a step is dragged (its edges step down to it; the others keep their routes).
 * A step dropped onto another edge's route sends that edge round it; a package with the earlier
 * import's positions is still drawn step under step once a step was added to it; a way back up
 * passes through no card. Geometry read from the drawn page (graph-geometry.ts).
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { legacyImportPositions } from '../../shared/bmad-method/positions.ts';
import { loadFixture, loadPackageDir } from '../fixtures/packages.ts';
import { drawnGraph, expectDrawnTopToBottom, expectThroughNoCard, type Drawn } from './graph-geometry.ts';
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

/** `files` under a package name of its own (one user imports the same course more than once here). */
function named(files: Map<string, string>, name: string): Map<string, string> {
  files.set('bmad.json', files.get('bmad.json')!.replace('"course-placement"', `"${name}"`));
  return files;
}

/** The party-shaped package with a way back from the advanced plan up to the decision. */
function loopingPackage(): Map<string, string> {
  const files = partyShapedPackage();
  const graph = JSON.parse(files.get('workflow.graph.json')!) as { edges: Array<{ from: string; to: string; label: string; isDefault?: boolean }> };
  // Two ways out of the advanced plan: the one on to the join stays its default.
  graph.edges.find((e) => e.from === 'advanced-plan' && e.to === 'join-plans')!.isDefault = true;
  graph.edges.push({ from: 'advanced-plan', to: 'choose-track', label: '[R] Choose again' });
  files.set('workflow.graph.json', `${JSON.stringify(graph, null, 2)}\n`);
  const advanced = files.get('steps/03b-advanced-plan.md')!;
  files.set('steps/03b-advanced-plan.md', advanced.replace('    isDefault: true\n', '    isDefault: true\n  - to: "choose-track"\n    label: "[R] Choose again"\n'));
  return files;
}

/** A step added between the first step and the decision. */
const WARM_UP = `---
schemaVersion: "1.1"
nodeId: "warm-up"
type: "step"
title: "Warm up"
agentId: "advisor"
inputs: []
outputs: []
setsVariables: []
transitions:
  - to: "choose-track"
    label: "next"
    isDefault: true
---

# Warm up

## Goal

Put the student at ease before the placement.

## Instructions

1. Ask how their week went.

## Completion

- Add \`warm-up\` to \`stepsCompleted\` once; move \`currentNodeId\` to the target of the transition taken; refresh \`updatedAt\`.
`;

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
async function storedWorkflow(context: BrowserContext, base: string, page: Page): Promise<{ revision: number; graph: StoredGraph; path: string }> {
  const projectId = /\/projects\/([^/]+)\//u.exec(page.url())![1]!;
  const workflowId = /\/workflows\/([^/?#]+)/u.exec(page.url())![1]!;
  const response = await context.request.get(`${base}/api/projects/${projectId}/workflows/${workflowId}`);
  const body = (await response.json()) as { data: { workflow: { revision: number; graphJson: string } } };
  return { revision: body.data.workflow.revision, graph: JSON.parse(body.data.workflow.graphJson) as StoredGraph, path: `/api/projects/${projectId}/workflows/${workflowId}` };
}

/** Drags a card by (dx, dy) screen pixels. */
async function drag(page: Page, box: Drawn['nodes'][number]['box'], dx: number, dy: number): Promise<void> {
  await page.mouse.move((box.left + box.right) / 2, box.top + 10);
  await page.mouse.down();
  await page.mouse.move((box.left + box.right) / 2 + dx, box.top + 10 + dy, { steps: 8 });
  await page.mouse.up();
}

/** Drags a card so its centre lands on `to` (screen pixels): the drag starts once the mouse has moved, and that first step moves nothing. */
async function dragCentreTo(page: Page, box: Drawn['nodes'][number]['box'], to: { x: number; y: number }): Promise<void> {
  const grab = { x: (box.left + box.right) / 2, y: box.top + 10 };
  await page.mouse.move(grab.x, grab.y);
  await page.mouse.down();
  await page.mouse.move(grab.x + 1, grab.y + 1);
  await page.mouse.move(to.x, to.y - (box.bottom - box.top) / 2 + 10, { steps: 8 });
  await page.mouse.up();
}

/** The same path, up to the fractions of a pixel a measured handle moves by between two drawings. */
function samePath(a: string, b: string): boolean {
  const numbers = (d: string) => [...d.matchAll(/-?\d+(?:\.\d+)?/g)].map((m) => Number(m[0]));
  const [x, y] = [numbers(a), numbers(b)];
  return a.replace(/[-\d.]+/g, '#') === b.replace(/[-\d.]+/g, '#') && x.every((n, i) => Math.abs(n - y[i]!) < 0.5);
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
      for (const e of untouched) expect(samePath(routeOf(g, e), routeOf(graph, e)), `${e.from} → ${e.to} keeps its route`).toBe(true);
    };
    expectFollowed(await drawn(page, 7));
    await page.locator('[data-testid="workflow-revision"][data-revision="2"]').waitFor();
    expectFollowed(await drawn(page, 7));
    await page.close();
  });

  it('re-routes an edge whose route a dragged step now sits on, round the step, and leaves the routes nothing covers as they were', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 1400 });
    await importAndOpen(page, await zipFile(named(partyShapedPackage(), 'course-placement-covered'), 'covered.bmad'), 6);
    const graph = await drawn(page, 7);
    expectDrawnTopToBottom(graph);
    const boxes = new Map(graph.nodes.map((n) => [n.id, n.box]));
    // The way from the decision straight to the join runs beside the plans: the plan farther from
    // the middle of that way is dropped onto it.
    const quit = graph.edges.find((e) => e.from === 'choose-track' && e.to === 'join-plans')!;
    const middle = quit.points[Math.floor(quit.points.length / 2)]!;
    const centre = (id: string) => ({ x: (boxes.get(id)!.left + boxes.get(id)!.right) / 2, y: (boxes.get(id)!.top + boxes.get(id)!.bottom) / 2 });
    const distance = (id: string) => Math.hypot(centre(id).x - middle.x, centre(id).y - middle.y);
    const plan = distance('beginner-plan') > distance('advanced-plan') ? 'beginner-plan' : 'advanced-plan';
    await dragCentreTo(page, boxes.get(plan)!, middle);

    const covered = (g: Drawn) => g.nodes.find((n) => n.id === plan)!.box;
    // Where the middle of the old way is in a later drawing (the view may have moved or zoomed since): by an unmoved card.
    const anchor = (g: Drawn) => g.nodes.find((n) => n.id === 'collect-background')!.box;
    const middleIn = (g: Drawn) => {
      const [was, now] = [anchor(graph), anchor(g)];
      const scale = (now.right - now.left) / (was.right - was.left);
      return { x: now.left + (middle.x - was.left) * scale, y: now.top + (middle.y - was.top) * scale };
    };
    const untouched = graph.edges.filter((e) => e.from !== plan && e.to !== plan && e !== quit);
    const routeOf = (g: Drawn, e: { from: string; to: string }) => g.edges.find((x) => x.from === e.from && x.to === e.to)!.d;
    const expectRoundIt = (g: Drawn) => {
      // The plan now sits where the way used to run.
      const [at, p] = [covered(g), middleIn(g)];
      expect(p.x > at.left && p.x < at.right && p.y > at.top && p.y < at.bottom, JSON.stringify({ p, at })).toBe(true);
      expectThroughNoCard(g);
      expect(samePath(routeOf(g, quit), quit.d)).toBe(false);
      for (const e of untouched) expect(samePath(routeOf(g, e), routeOf(graph, e)), `${e.from} → ${e.to} keeps its route`).toBe(true);
    };
    expectRoundIt(await drawn(page, 7));
    await page.locator('[data-testid="workflow-revision"][data-revision="2"]').waitFor();
    await page.reload();
    await page.getByTestId('graph-keys').waitFor();
    expectRoundIt(await drawn(page, 7));
    await page.close();
  });

  it('still draws a package an earlier import left its left-to-right positions in step under step once a step was added to it (as the AI adds one)', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 1400 });
    const files = loadFixture('branching');
    const graphJson = JSON.parse(files.get('workflow.graph.json')!) as { entryNodeId: string; nodes: Array<Record<string, unknown> & { id: string }>; edges: Array<Record<string, unknown> & { from: string; to: string }> };
    const old = legacyImportPositions(graphJson.entryNodeId, graphJson.nodes.map((n) => n.id), graphJson.edges);
    files.set('workflow.graph.json', `${JSON.stringify({ ...graphJson, metadata: { source: 'bmad-method', layout: { positions: old } } }, null, 2)}\n`);
    await importAndOpen(page, await zipFile(named(files, 'course-placement-added-to'), 'added-to.bmad'), 6);

    // A step between the first one and the decision, its edges in place of the one between them,
    // no position for it and the old ones kept: what a graph edit from the Workbench writes.
    const stored = await storedWorkflow(context, suite.product.url, page);
    const { nodes, edges } = stored.graph as typeof graphJson;
    const first = nodes[0]!;
    const graph = {
      ...stored.graph,
      nodes: [first, { ...first, id: 'warm-up', file: String(first.file).replace(/[^/]+$/u, '01b-warm-up.md'), title: 'Warm up' }, ...nodes.slice(1)],
      edges: [
        { from: 'collect-background', to: 'warm-up', label: 'next' },
        { from: 'warm-up', to: 'choose-track', label: 'next' },
        ...edges.filter((e) => !(e.from === 'collect-background' && e.to === 'choose-track')),
      ],
    };
    expect(graph.metadata?.layout?.positions).toEqual(old);
    const response = await context.request.post(`${suite.product.url}${stored.path}/graph-edit`, {
      data: { graph: `${JSON.stringify(graph, null, 2)}\n`, createSteps: [{ nodeId: 'warm-up', markdown: WARM_UP }], baseRevision: stored.revision },
      headers: { origin: suite.product.url },
    });
    expect(response.status(), await response.text()).toBe(200);

    await page.reload();
    await page.getByTestId('graph-keys').waitFor();
    await expect.poll(() => page.getByTestId('graph-node').count()).toBe(7);
    const drawnGraph = await drawn(page, 7);
    expectDrawnTopToBottom(drawnGraph);
    const boxes = new Map(drawnGraph.nodes.map((n) => [n.id, n.box]));
    // The new step between the two it joins, the decision under it.
    expect(boxes.get('warm-up')!.top).toBeGreaterThan(boxes.get('collect-background')!.bottom);
    expect(boxes.get('choose-track')!.top).toBeGreaterThan(boxes.get('warm-up')!.bottom);
    await page.close();
  });

  it('draws a way back up to the decision through no card, where a lane right of every card would take it through the plan beside its source', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 1400 });
    await importAndOpen(page, await zipFile(named(loopingPackage(), 'course-placement-looping'), 'looping.bmad'), 6);
    const graph = await drawn(page, 8);
    const boxes = new Map(graph.nodes.map((n) => [n.id, n.box]));
    // The other plan is on the advanced plan's row, right of it: the way out of its right side to a
    // lane right of every card would run through it.
    expect(boxes.get('beginner-plan')!.left).toBeGreaterThan(boxes.get('advanced-plan')!.right);
    expect(boxes.get('beginner-plan')!.top).toBeLessThan(boxes.get('advanced-plan')!.bottom);
    expectThroughNoCard(graph);
    await page.close();
  });
});
