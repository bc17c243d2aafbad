/**
 * The semantic graph diff in a real browser (issue 16): a change staged on a workflow session that
 * adds a node (with its edge and step file) and removes an edge draws the union top to bottom as
 * the editor lays it out, the added node green with a "+ added" marker and the removed edge
 * ghosted red and dashed with a "−" marker; clicking the added node opens its step's diff; undoing the removed edge, then the added node, from the graph
 * makes a new version each time and says what was undone and that version, in English and Chinese;
 * and a graph that does not parse shows its text diff with the parse error, not a blank canvas.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { drawnGraph, expectDrawnTopToBottom } from './graph-geometry.ts';
import { describeBrowser, newUser, startSuite, type Suite } from './harness.ts';

const WF = 'w';
const GRAPH_KEY = `graph:${WF}`;

async function api<T>(context: BrowserContext, baseUrl: string, method: 'GET' | 'POST', path: string, data?: unknown): Promise<T> {
  const response = await context.request.fetch(`${baseUrl}${path}`, { method, data, headers: { origin: baseUrl } });
  const body = (await response.json()) as { data: T; error: unknown };
  if (!response.ok()) throw new Error(`${method} ${path}: ${response.status()} ${JSON.stringify(body.error)}`);
  return body.data;
}

/** Open a changed file's diff when it is folded. */
async function unfold(file: ReturnType<Page['locator']>): Promise<void> {
  if (!(await file.locator('> details').evaluate((el) => (el as HTMLDetailsElement).open))) await file.locator('> details > summary').click();
}

const computed = (page: Page, selector: string, property: string) =>
  page.locator(selector).first().evaluate((el, prop) => getComputedStyle(el).getPropertyValue(prop), property);

describeBrowser('graph diff (browser)', () => {
  let suite: Suite;

  beforeAll(async () => {
    suite = await startSuite();
  });

  afterAll(async () => {
    await suite?.close();
  });

  it('shows an added node and a removed edge in their colours with text markers, opens the step on click, undoes the edge and the node with a word on each, and shows a broken graph as text with its error', { timeout: 180_000 }, async () => {
    const { product } = suite;
    const context = await suite.newContext();
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 1400 });
    const base = product.url;

    const user = newUser('Differ');
    await api(context, base, 'POST', '/api/auth/register', user);
    const { project } = await api<{ project: { id: string } }>(context, base, 'POST', '/api/projects', { name: `Diff ${user.name}` });
    const projectApi = `/api/projects/${project.id}`;
    await api(context, base, 'POST', `${projectApi}/workflows`, { id: WF, name: 'Diff flow' });
    const { workflow } = await api<{ workflow: { graphJson: string; steps: Array<{ nodeId: string; markdown: string }> } }>(context, base, 'GET', `${projectApi}/workflows/${WF}`);
    const stored = JSON.parse(workflow.graphJson) as { nodes: Array<Record<string, string>>; edges: Array<Record<string, string>> };
    const start = stored.nodes.find((n) => n.id === 'start')!;
    const removedEdge = stored.edges[0]!;

    // The draft: a node "check" after start (with its edge and step file), the start → end edge gone,
    // and two more files, so the changes pane starts with every file folded.
    const graph = structuredClone(stored);
    graph.nodes.push({ id: 'check', type: 'step', file: start.file!.replace(/[^/]+$/u, 'check.md'), title: 'Check the request' });
    graph.edges = [{ from: 'start', to: 'check', label: 'next' }, { from: 'check', to: 'end', label: 'done' }];
    const startStep = workflow.steps.find((s) => s.nodeId === 'start')!.markdown;
    const checkStep = startStep.replace(/nodeId: "?start"?/u, 'nodeId: "check"').replace(/title: .*/u, 'title: "Check the request"');
    const endStep = workflow.steps.find((s) => s.nodeId === 'end')!.markdown;
    const session = await api<{ sessionId: string }>(context, base, 'POST', `${projectApi}/ai/sessions`, { workflowId: WF, targetType: 'workflow', mode: 'optimize' });
    const sessionPath = `${projectApi}/ai/sessions/${session.sessionId}`;
    const stage = (operations: unknown[]) =>
      api<{ version: number }>(context, base, 'POST', `${sessionPath}/stage`, { changeSet: { schemaVersion: '1.0', targetType: 'workflow', mode: 'optimize', operations } });
    await stage([
      { op: 'upsert', targetType: 'workflow', target: { workflowId: WF }, payload: { graphJson: graph }, reason: 'add a check' },
      { op: 'upsert', targetType: 'step', target: { workflowId: WF, nodeId: 'check' }, payload: { stepMarkdown: checkStep }, reason: 'its step' },
      { op: 'upsert', targetType: 'step', target: { workflowId: WF, nodeId: 'end' }, payload: { stepMarkdown: `${endStep.trimEnd()}\n\nThank the requester.\n` }, reason: 'polish' },
      { op: 'upsert', targetType: 'step', target: { workflowId: WF, nodeId: 'start' }, payload: { stepMarkdown: `${startStep.trimEnd()}\n\nRead the request first.\n` }, reason: 'polish' },
    ]);

    await page.goto(`/builder/${project.id}/ai-workbench?workflowId=${WF}&targetType=workflow&mode=optimize`);
    await page.locator(`[data-testid="workbench"][data-session-id="${session.sessionId}"]`).waitFor();
    const graphFile = page.locator(`[data-testid="changed-file"][data-key="${GRAPH_KEY}"]`);
    await graphFile.locator('summary').click();
    const added = graphFile.locator('[data-testid="diff-node"][data-node-id="check"]');
    await added.waitFor();

    // Laid out as the editor lays a graph out (dagre, top to bottom), the removed edge too: check
    // under start, end under check, every edge from a card's bottom into the next one's top through
    // no card, no label on a card or another label.
    const picture = await drawnGraph(graphFile.locator('.svelte-flow'), '[data-testid="diff-node"]', '[data-testid="diff-edge"]', 3);
    expectDrawnTopToBottom(picture);
    const cards = new Map(picture.nodes.map((n) => [n.id, n.box]));
    expect(cards.get('check')!.top).toBeGreaterThan(cards.get('start')!.bottom);
    expect(cards.get('end')!.top).toBeGreaterThan(cards.get('check')!.bottom);

    // The added node: green, with the words "+ added" on it (colour is not the only cue).
    expect(await added.getAttribute('data-status')).toBe('added');
    expect(await added.getByTestId('diff-marker').textContent()).toBe('+ added');
    expect(await computed(page, '[data-testid="diff-node"][data-node-id="check"]', 'border-top-color')).toBe('rgb(26, 127, 55)');
    expect(await graphFile.locator('[data-testid="diff-node"][data-status="unchanged"]').count()).toBe(2);

    // The removed edge: kept in the picture, red, dashed and faded, its label marked "−".
    const removed = graphFile.locator(`[data-testid="diff-edge"][data-status="removed"][data-from="${removedEdge.from}"][data-to="${removedEdge.to}"]`);
    await removed.waitFor({ state: 'attached' });
    const path = `[data-testid="diff-edge"][data-status="removed"] .svelte-flow__edge-path`;
    expect(await computed(page, path, 'stroke')).toBe('rgb(207, 34, 46)');
    expect(await computed(page, path, 'stroke-dasharray')).toMatch(/^6(px)?,? 4(px)?$/u);
    expect(Number(await computed(page, path, 'opacity'))).toBeLessThan(1);
    await graphFile.locator('.svelte-flow__edge-label', { hasText: `− ${removedEdge.label}` }).waitFor();
    // The legend names every colour in words.
    expect(await graphFile.getByLabel('Legend').textContent()).toMatch(/\+ added[\s\S]*− removed[\s\S]*~ changed/u);

    // The graph's text hunks offer Keep but no Undo: undoing the new node's hunk alone would leave
    // its edges pointing at nothing; the note sends the reader to the graph's own Undo (review M2).
    await graphFile.getByTestId('hunk').first().waitFor({ state: 'attached' });
    expect(await graphFile.getByTestId('hunk').count()).toBeGreaterThan(1);
    expect(await graphFile.getByTestId('undo-hunk').count()).toBe(0);
    await graphFile.getByTestId('graph-hunk-undo-note').waitFor({ state: 'attached' });

    // Clicking the added node opens its step's diff.
    const stepFile = page.locator(`[data-testid="changed-file"][data-key="step:${WF}/check"] > details`);
    expect(await stepFile.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(false);
    await added.click();
    await page.waitForFunction((key) => document.querySelector<HTMLDetailsElement>(`[data-testid="changed-file"][data-key="${key}"] > details`)?.open === true, `step:${WF}/check`);
    await stepFile.locator('[data-testid="frontmatter-diff"]').waitFor();

    // Undo the removed edge from the list under the picture: a new version, the edge back unchanged.
    await graphFile.locator(`[data-testid="graph-diff-item"][data-kind="edge"][data-status="removed"]`).click();
    await graphFile.getByTestId('graph-undo').click();
    await page.locator('[data-testid="changes-version"][data-version="2"]').waitFor();
    // The changes pane folds its files again when a new version arrives (more than three files).
    await unfold(graphFile);
    await graphFile.locator(`[data-testid="diff-edge"][data-status="unchanged"][data-from="${removedEdge.from}"][data-to="${removedEdge.to}"]`).waitFor({ state: 'attached' });
    // The word on it, in a polite live region: what was undone and the version it made, in both languages.
    const feedback = page.getByTestId('undo-feedback');
    const said = async () => (await feedback.textContent())?.trim() ?? '';
    const edge = `${removedEdge.from} → ${removedEdge.to}`;
    expect(await feedback.getAttribute('aria-live')).toBe('polite');
    await expect.poll(said).toBe(`You undid the removed edge ${edge} in workflows/${WF}/workflow.graph.json: now version 2.`);
    await page.getByTestId('language-switch').selectOption('zh');
    await page.locator('html[lang^="zh"]').waitFor({ state: 'attached' });
    await expect.poll(said).toBe(`你撤销了 workflows/${WF}/workflow.graph.json 中删除的连线 ${edge}：现为版本 2。`);

    // Undo the added node (its edges and step file go with it): the graph is the stored one again.
    await graphFile.locator(`[data-testid="graph-diff-item"][data-kind="node"][data-id="check"]`).click();
    await graphFile.getByTestId('graph-undo').click();
    await page.locator('[data-testid="changes-version"][data-version="3"]').waitFor();
    await expect.poll(said).toBe(`你撤销了 ${WF} 中新增的节点 check：现为版本 3。`);
    await page.getByTestId('language-switch').selectOption('en');
    await page.locator('html[lang^="en"]').waitFor({ state: 'attached' });
    await expect.poll(said).toBe(`You undid the added node check in ${WF}: now version 3.`);

    // A graph that does not parse: the parse error and the text diff, no canvas.
    await stage([{ op: 'upsert', targetType: 'workflow', target: { workflowId: WF }, payload: { graphJson: '{\n  "nodes": [\n    {"id": "start",\n' }, reason: 'broken' }]);
    await page.locator('[data-testid="changes-version"][data-version="4"]').waitFor();
    await unfold(graphFile);
    const broken = graphFile.getByTestId('semantic-unparsable');
    await broken.waitFor();
    expect(await broken.textContent()).toMatch(/does not parse[\s\S]*line \d+, column \d+/u);
    await graphFile.locator('[data-testid="code-diff"]').waitFor();
    expect(await graphFile.locator('.svelte-flow').count()).toBe(0);
    await context.close();
  });
});
