/**
 * Editing the workflow graph on the canvas in a real browser: add a step, connect two steps by
 * dragging from handle to handle, move nodes (a burst of drags saves once), reload and find the
 * positions kept, undo and redo, add and connect by keys, and a refused deletion of the start
 * step with its reason; the page logs no console warnings throughout. Then: Enter on a focused edge
 * or node opens its inspector with the focus and Escape brings the focus back; "Add step after"
 * inserts the step on the default path, clear of the other nodes; picking a connection target with
 * the arrows moves no node; Svelte Flow's controls and the node counts in Chinese.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, newUser, screenshot, startSuite, type Suite } from './harness.ts';

interface StoredWorkflow {
  revision: number;
  graphJson: string;
  steps: Array<{ nodeId: string; path: string; markdown: string }>;
}

async function api<T>(context: BrowserContext, baseUrl: string, method: 'GET' | 'POST', path: string, data?: unknown): Promise<T> {
  const response = await context.request.fetch(`${baseUrl}${path}`, { method, data, headers: { origin: baseUrl } });
  const body = (await response.json()) as { data: T; error: unknown };
  if (!response.ok()) throw new Error(`${method} ${path}: ${response.status()} ${JSON.stringify(body.error)}`);
  return body.data;
}

function positionsOf(workflow: StoredWorkflow): Record<string, { x: number; y: number }> {
  return (JSON.parse(workflow.graphJson) as { metadata?: { layout?: { positions?: Record<string, { x: number; y: number }> } } }).metadata?.layout?.positions ?? {};
}

/** The node's position in flow coordinates, from Svelte Flow's transform. */
async function flowPosition(page: Page, nodeId: string): Promise<{ x: number; y: number }> {
  const transform = await page.locator(`.svelte-flow__node[data-id="${nodeId}"]`).evaluate((el) => (el as HTMLElement).style.transform);
  const match = /translate\(\s*(-?[\d.]+)px,\s*(-?[\d.]+)px\)/.exec(transform);
  if (!match) throw new Error(`no translate in "${transform}"`);
  return { x: Number(match[1]), y: Number(match[2]) };
}

async function centre(page: Page, selector: string): Promise<{ x: number; y: number }> {
  const box = await page.locator(selector).boundingBox();
  if (!box) throw new Error(`${selector} is not visible`);
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

async function drag(page: Page, from: { x: number; y: number }, to: { x: number; y: number }): Promise<void> {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(to.x, to.y, { steps: 12 });
  await page.mouse.up();
}

async function revisionShown(page: Page, revision: number): Promise<void> {
  await page.locator(`[data-testid="workflow-revision"][data-revision="${revision}"]`).waitFor();
}

/** The signed-in state of one user the later tests share (registrations from one address are rate limited). */
let signedIn: Awaited<ReturnType<BrowserContext['storageState']>> | undefined;

/** A new project with a new workflow (start → end), its page open with the graph drawn, in `locale`. */
async function openNewWorkflow(suite: Suite, label: string, locale = 'en-US') {
  const { product } = suite;
  const options = { baseURL: product.url, locale, viewport: { width: 1280, height: 1400 } };
  if (!signedIn) {
    const first = await suite.browser.newContext(options);
    await api(first, product.url, 'POST', '/api/auth/register', newUser('GraphKeys'));
    signedIn = await first.storageState();
    await first.close();
  }
  const context = await suite.browser.newContext({ ...options, storageState: signedIn });
  const page = await context.newPage();
  const { project } = await api<{ project: { id: string } }>(context, product.url, 'POST', '/api/projects', { name: `${label} project` });
  await api(context, product.url, 'POST', `/api/projects/${project.id}/workflows`, { id: 'w', name: `${label} flow` });
  const stored = () => api<{ workflow: StoredWorkflow }>(context, product.url, 'GET', `/api/projects/${project.id}/workflows/w`).then((d) => d.workflow);
  await page.goto(`/projects/${project.id}/workflows/w`);
  await page.locator('[data-testid="graph-node"][data-node-id="end"]').waitFor();
  await revisionShown(page, 1);
  return { context, page, stored };
}

/** What has the keyboard focus: a Svelte Flow node or edge by its id, else the element's test id or id. */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el) return '';
    if (el.classList.contains('svelte-flow__node') || el.classList.contains('svelte-flow__edge')) return `flow:${el.getAttribute('data-id')}`;
    return el.getAttribute('data-testid') ?? `#${el.id}`;
  });
}

describeBrowser('graph canvas (browser)', () => {
  let suite: Suite;

  beforeAll(async () => {
    suite = await startSuite();
  });

  afterAll(async () => {
    await suite?.close();
  });

  it('adds a step and an edge, moves nodes, keeps positions across a reload, undoes and redoes, and refuses deleting the start step', async () => {
    const { product } = suite;
    const context = await suite.newContext();
    const page = await context.newPage();
    // Tall enough that the whole canvas, handles included, is on screen for the mouse.
    await page.setViewportSize({ width: 1280, height: 1400 });
    const warnings: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'warning' || message.type() === 'error') warnings.push(`${message.type()}: ${message.text()}`);
    });

    const user = newUser('Canvas');
    await api(context, product.url, 'POST', '/api/auth/register', user);
    const { project } = await api<{ project: { id: string } }>(context, product.url, 'POST', '/api/projects', { name: `Canvas ${user.name}` });
    await api(context, product.url, 'POST', `/api/projects/${project.id}/workflows`, { id: 'w', name: 'Canvas flow' });
    const stored = () => api<{ workflow: StoredWorkflow }>(context, product.url, 'GET', `/api/projects/${project.id}/workflows/w`).then((d) => d.workflow);

    await page.goto(`/projects/${project.id}/workflows/w`);
    await page.getByTestId('graph-keys').waitFor();
    // Svelte Flow loads when the graph is first shown: wait for the drawn graph, not only the toolbar.
    await page.locator('[data-testid="graph-node"][data-node-id="end"]').waitFor();
    expect(await page.getByTestId('graph-node').count()).toBe(2);
    await revisionShown(page, 1);

    // Add a step after "start" with the toolbar: node, edge and step file in one revision.
    await page.locator('[data-testid="graph-node"][data-node-id="start"]').click();
    await page.getByTestId('graph-add-step').click();
    await page.locator('[data-testid="graph-node"][data-node-id="step-3"]').waitFor();
    await revisionShown(page, 2);
    let workflow = await stored();
    expect(workflow.steps.map((s) => s.nodeId).sort()).toEqual(['end', 'start', 'step-3']);
    expect(JSON.parse(workflow.graphJson).edges).toEqual([
      { from: 'start', to: 'step-3', label: 'next' },
      { from: 'step-3', to: 'end', label: 'next' },
    ]);
    // The start step's file lists its new way out, and validation marks no error on it.
    expect(workflow.steps.find((s) => s.nodeId === 'start')!.markdown).toContain('  - to: "step-3"\n    label: "next"\n');
    expect(await page.locator('[data-testid="graph-node"][data-node-id="start"] [data-testid="node-issues"]:not([data-errors="0"])').count()).toBe(0);
    expect(await page.locator('[data-testid="node-issues"]:not([data-errors="0"])').count()).toBe(0);

    // Connect start to end (a second way out) by dragging from its bottom handle to end's top handle.
    await page.getByTestId('graph-auto-layout').click();
    await revisionShown(page, 3);
    await drag(
      page,
      await centre(page, '.svelte-flow__node[data-id="start"] .svelte-flow__handle[data-handleid="out"]'),
      await centre(page, '.svelte-flow__node[data-id="end"] .svelte-flow__handle[data-handleid="in"]'),
    );
    // A straight vertical edge has a box of no width, which Playwright counts as hidden: wait for it in the page.
    await page.locator('[data-testid="graph-edge"][data-from="start"][data-to="end"]').waitFor({ state: 'attached' });
    await revisionShown(page, 4);
    expect(JSON.parse((await stored()).graphJson).edges).toContainEqual({ from: 'start', to: 'end', label: 'next' });

    // Two drags in quick succession save as one revision, with both positions.
    const endBefore = await flowPosition(page, 'end');
    const endCard = await centre(page, '[data-testid="graph-node"][data-node-id="end"]');
    await drag(page, endCard, { x: endCard.x + 160, y: endCard.y + 60 });
    const stepCard = await centre(page, '[data-testid="graph-node"][data-node-id="step-3"]');
    await drag(page, stepCard, { x: stepCard.x - 140, y: stepCard.y + 20 });
    await revisionShown(page, 5);
    await page.locator('[data-testid="graph-saving"][data-pending="0"]').waitFor({ state: 'attached' });
    workflow = await stored();
    expect(workflow.revision).toBe(5);
    const endMoved = await flowPosition(page, 'end');
    expect(endMoved.x).toBeGreaterThan(endBefore.x + 50);
    expect(positionsOf(workflow).end).toEqual({ x: Math.round(endMoved.x), y: Math.round(endMoved.y) });
    const stepMoved = positionsOf(workflow)['step-3']!;

    // A reload draws both nodes where they were left.
    await page.reload();
    await page.locator('[data-testid="graph-node"][data-node-id="end"]').waitFor();
    expect(await flowPosition(page, 'end')).toEqual(positionsOf(workflow).end);
    expect(await flowPosition(page, 'step-3')).toEqual(stepMoved);

    // Deleting the start step is refused with the reason, and nothing is saved.
    await page.locator('[data-testid="graph-node"][data-node-id="start"]').click();
    await page.getByTestId('graph-delete-step').click();
    await page.getByTestId('graph-edit-message').waitFor();
    expect(await page.getByTestId('graph-edit-message').textContent()).toContain('“start” is the start step and cannot be deleted');
    expect((await stored()).revision).toBe(5);
    // The refusal follows a language switch, and back.
    await page.getByTestId('language-switch').selectOption('zh');
    await expect.poll(async () => (await page.getByTestId('graph-edit-message').textContent()) ?? '').toContain('“start”是起始步骤，不能删除');
    await page.getByTestId('language-switch').selectOption('en');
    await expect.poll(async () => (await page.getByTestId('graph-edit-message').textContent()) ?? '').toContain('“start” is the start step and cannot be deleted');

    // Keys: A adds a step after the selected one (step-3 → step-4 → end); C, arrows and Enter
    // connect start to it (the choices before it, "end" and "step-3", start already leads to).
    // Clicked near its corner: the start → end edge runs over the card's middle.
    await page.locator('[data-testid="graph-node"][data-node-id="step-3"]').click({ position: { x: 8, y: 8 } });
    await page.keyboard.press('a');
    await page.locator('[data-testid="graph-node"][data-node-id="step-4"]').waitFor();
    await revisionShown(page, 6);
    await page.locator('[data-testid="graph-node"][data-node-id="start"]').click();
    await page.keyboard.press('c');
    await page.getByTestId('graph-connecting').waitFor();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    const target = (await page.getByTestId('graph-connecting').getAttribute('data-to'))!;
    expect(target).toBe('step-4');
    await page.keyboard.press('Enter');
    await page.locator(`[data-testid="graph-edge"][data-from="start"][data-to="${target}"]`).waitFor({ state: 'attached' });
    await revisionShown(page, 7);

    // Undo twice (the key connection, then the added step), each a new revision; redo once.
    await page.keyboard.press('Control+z');
    await revisionShown(page, 8);
    expect(await page.locator(`[data-testid="graph-edge"][data-from="start"][data-to="${target}"]`).count()).toBe(0);
    await page.keyboard.press('Control+z');
    await revisionShown(page, 9);
    await page.locator('[data-testid="graph-node"][data-node-id="step-4"]').waitFor({ state: 'detached' });
    workflow = await stored();
    expect(workflow.steps.map((s) => s.nodeId)).not.toContain('step-4');
    expect(positionsOf(workflow).end).toEqual(positionsOf(await stored()).end);
    await page.keyboard.press('Control+Shift+z');
    await revisionShown(page, 10);
    await page.locator('[data-testid="graph-node"][data-node-id="step-4"]').waitFor();
    expect((await stored()).steps.map((s) => s.nodeId)).toContain('step-4');

    await screenshot(page, 'graph-canvas.png');
    expect(warnings).toEqual([]);
    await context.close();
  });

  it('opens the edge and step inspectors with Enter or Space on a focused edge or node, and Escape brings the focus back', async () => {
    const { context, page } = await openNewWorkflow(suite, 'Keys');

    // Enter on the focused edge: the edge inspector opens with the focus in its label field.
    const edge = page.locator('.svelte-flow__edge[data-from="start"][data-to="end"]');
    await edge.focus();
    expect(await edge.getAttribute('aria-label')).toBe('Edge from start to end: next');
    await page.keyboard.press('Enter');
    await page.getByTestId('edge-inspector').waitFor();
    expect(await page.locator('#edge-title').textContent()).toContain('start');
    await expect.poll(() => focused(page)).toBe('edge-label');
    // Escape: back on the edge, the inspector left open.
    await page.keyboard.press('Escape');
    await expect.poll(() => focused(page)).toBe('flow:edge-0');
    expect(await page.getByTestId('edge-inspector').isVisible()).toBe(true);
    // Space does the same once the inspector was closed.
    await page.getByTestId('edge-inspector').getByRole('button', { name: 'Close' }).click();
    await page.getByTestId('edge-inspector').waitFor({ state: 'detached' });
    await edge.focus();
    await page.keyboard.press(' ');
    await page.getByTestId('edge-inspector').waitFor();
    await expect.poll(() => focused(page)).toBe('edge-label');

    // Enter on the focused "end" node: its step inspector opens, as a click does, with the focus on its heading.
    await page.locator('.svelte-flow__node[data-id="end"]').focus();
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="step-inspector"][data-node-id="end"]').waitFor();
    expect(new URL(page.url()).searchParams.get('node')).toBe('end');
    await expect.poll(() => focused(page)).toBe('#inspector-title');
    // Tab moves on inside the inspector; Escape from there brings the focus back to the node.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => !!document.activeElement?.closest('[data-testid="step-inspector"]'))).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => focused(page)).toBe('flow:end');
    expect(await page.locator('[data-testid="step-inspector"][data-node-id="end"]').isVisible()).toBe(true);
    await context.close();
  });

  it('inserts a step added after a node on its default path, drawn clear of every other node', async () => {
    const { context, page, stored } = await openNewWorkflow(suite, 'Insert');
    await page.locator('[data-testid="graph-node"][data-node-id="start"]').click();
    await page.getByTestId('graph-add-step').click();
    await revisionShown(page, 2);
    // Start → step-3 → end: the way out of start now leads through the new step; none ends at it.
    const workflow = await stored();
    expect(JSON.parse(workflow.graphJson).edges).toEqual([
      { from: 'start', to: 'step-3', label: 'next' },
      { from: 'step-3', to: 'end', label: 'next' },
    ]);
    await page.locator('[data-testid="graph-edge"][data-from="step-3"][data-to="end"]').waitFor({ state: 'attached' });
    expect(await page.locator('[data-testid="graph-edge"][data-from="start"][data-to="end"]').count()).toBe(0);
    expect(workflow.steps.find((s) => s.nodeId === 'step-3')!.markdown).toContain('  - to: "end"\n    label: "next"\n');
    await page.locator('[data-testid="workflow-issue-badges"]').waitFor();
    expect(await page.locator('[data-testid="node-issues"]:not([data-errors="0"])').count()).toBe(0);

    // Drawn one under the other, no two cards overlapping.
    const boxes = async () => {
      const out: Record<string, { x: number; y: number; width: number; height: number }> = {};
      for (const id of ['start', 'step-3', 'end']) out[id] = (await page.locator(`[data-testid="graph-node"][data-node-id="${id}"]`).boundingBox())!;
      return out;
    };
    const overlaps = (a: { x: number; y: number; width: number; height: number }, b: typeof a) =>
      a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
    const drawn = await boxes();
    expect(overlaps(drawn.start!, drawn['step-3']!)).toBe(false);
    expect(overlaps(drawn['step-3']!, drawn.end!)).toBe(false);
    expect(overlaps(drawn.start!, drawn.end!)).toBe(false);
    expect(drawn.start!.y).toBeLessThan(drawn['step-3']!.y);
    expect(drawn['step-3']!.y).toBeLessThan(drawn.end!.y);
    await context.close();
  });

  it('picks a connection target with the arrow keys without moving the selected node', async () => {
    const { context, page } = await openNewWorkflow(suite, 'Pick');
    await page.locator('[data-testid="graph-node"][data-node-id="start"]').click();
    const before = await flowPosition(page, 'start');
    await page.keyboard.press('c');
    await page.getByTestId('graph-connecting').waitFor();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    expect(await page.getByTestId('graph-connecting').getAttribute('data-to')).toBe('end');
    expect(await flowPosition(page, 'start')).toEqual(before);
    expect(await page.locator('.svelte-flow__node[data-id="start"]').evaluate((el) => el.classList.contains('selected'))).toBe(true);
    expect((await page.locator('[id^="svelte-flow__aria-live"]').textContent())?.trim()).toBe('');
    await page.keyboard.press('Escape');
    await page.getByTestId('graph-connecting').waitFor({ state: 'detached' });
    await context.close();
  });

  it('says the graph controls and the node and edge counts in the reader’s language, with plurals', async () => {
    const english = await openNewWorkflow(suite, 'Counts');
    expect(await english.page.getByTestId('node-counts').textContent()).toBe('2 nodes · 1 edge');
    expect(await english.page.locator('.svelte-flow__controls-zoomin').getAttribute('aria-label')).toBe('Zoom in');
    await english.context.close();

    const { context, page } = await openNewWorkflow(suite, 'Zh', 'zh-CN');
    expect(await page.getByTestId('node-counts').textContent()).toBe('2 个节点 · 1 条连线');
    const labels = await page.locator('.svelte-flow__controls button').evaluateAll((buttons) => buttons.map((b) => [b.getAttribute('aria-label'), b.getAttribute('title')]));
    expect(labels).toEqual([
      ['放大', '放大'],
      ['缩小', '缩小'],
      ['适应视图，显示整个图', '适应视图，显示整个图'],
    ]);
    expect(await page.locator('.svelte-flow__controls').getAttribute('aria-label')).toBe('图视图控制');
    // The help a screen reader reads for a focused node is Chinese too.
    const help = await page.locator('.svelte-flow__node[data-id="start"]').getAttribute('aria-describedby');
    expect(await page.locator(`[id="${help}"]`).textContent()).toContain('按 Enter 或空格键打开步骤');
    await context.close();
  });
});
