/**
 * A graph node that names no step file: the step inspector says it has none, shows no editor and
 * names no made-up path; an editor can create one, which gives the node a file in the graph and
 * stores the file (one revision). The product's saves refuse a graph whose node lacks `file`, so
 * the page is shown one through the network: the workflow's first read answers the stored
 * workflow with such a node added (the real Worker stores everything after).
 */
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { graph } from '../../app/lib/i18n/en/graph.ts';
import { describeBrowser, newUser, startSuite, type Suite } from './harness.ts';

async function api<T>(context: BrowserContext, baseUrl: string, method: 'GET' | 'POST', path: string, data?: unknown): Promise<T> {
  const response = await context.request.fetch(`${baseUrl}${path}`, { method, data, headers: { origin: baseUrl } });
  const body = (await response.json()) as { data: T; error: unknown };
  if (!response.ok()) throw new Error(`${method} ${path}: ${response.status()} ${JSON.stringify(body.error)}`);
  return body.data;
}

interface StoredWorkflow {
  graphJson: string;
  revision: number;
  steps: Array<{ nodeId: string; path: string; markdown: string }>;
}

describeBrowser('a node without a step file (browser)', () => {
  let suite: Suite;

  beforeAll(async () => {
    suite = await startSuite();
  });

  afterAll(async () => {
    await suite?.close();
  });

  it('shows that the node has no step file, without a guessed path, and creates one on request', { timeout: 120_000 }, async () => {
    const base = suite.product.url;
    const context = await suite.browser.newContext({ baseURL: base, locale: 'en-US', viewport: { width: 1280, height: 1200 } });
    await api(context, base, 'POST', '/api/auth/register', newUser('NoFile'));
    const { project } = await api<{ project: { id: string } }>(context, base, 'POST', '/api/projects', { name: 'No file project' });
    await api(context, base, 'POST', `/api/projects/${project.id}/workflows`, { id: 'w', name: 'No file flow' });
    const workflowPath = `/api/projects/${project.id}/workflows/w`;
    const stored = () => api<{ workflow: StoredWorkflow }>(context, base, 'GET', workflowPath).then((d) => d.workflow);

    const page = await context.newPage();
    // The first read of the workflow: the stored one, with a node `wrap-up` that names no file.
    await page.route(
      (url) => url.pathname === workflowPath,
      async (route) => {
        const response = await route.fetch();
        const body = (await response.json()) as { data: { workflow: StoredWorkflow } };
        const graph = JSON.parse(body.data.workflow.graphJson) as { entryNodeId: string; nodes: Array<Record<string, unknown>>; edges: Array<Record<string, unknown>> };
        // Between the start and what it led to, so the graph is sound but for the missing file.
        const onward = graph.edges.find((e) => e.from === graph.entryNodeId)!;
        graph.nodes.push({ id: 'wrap-up', type: 'step', title: 'Wrap up' });
        graph.edges.push({ from: 'wrap-up', to: onward.to, label: 'next' });
        onward.to = 'wrap-up';
        body.data.workflow.graphJson = `${JSON.stringify(graph, null, 2)}\n`;
        await route.fulfill({ response, json: body });
      },
      { times: 1 },
    );
    await page.goto(`/projects/${project.id}/workflows/w?node=wrap-up`);
    const inspector = page.locator('[data-testid="step-inspector"][data-node-id="wrap-up"]');
    await inspector.waitFor();

    // ---- No step file: said so, no editor, no fields, no path made up from the node's id.
    const none = inspector.getByTestId('step-no-file');
    await none.waitFor();
    expect(await none.textContent()).toContain(graph.step.noFile);
    expect(await inspector.getByTestId('step-editor').count()).toBe(0);
    expect(await inspector.getByTestId('step-title').count()).toBe(0);
    expect(await inspector.getByTestId('step-missing').count()).toBe(0);
    expect(await inspector.textContent()).not.toContain('wrap-up.md');

    // ---- Create it: the node gets a file beside the others, the file is stored, the editor opens on it.
    await inspector.getByTestId('step-create-file').click();
    await inspector.getByTestId('step-editor').waitFor();
    await none.waitFor({ state: 'detached' });
    const workflow = await stored();
    const node = (JSON.parse(workflow.graphJson) as { nodes: Array<{ id: string; file?: string }> }).nodes.find((n) => n.id === 'wrap-up');
    expect(node?.file).toMatch(/(^|\/)wrap-up\.md$/);
    const step = workflow.steps.find((s) => s.nodeId === 'wrap-up');
    expect(step?.path).toBe(node!.file);
    expect(step?.markdown).toMatch(/nodeId: "?wrap-up"?\n/);
    expect(await inspector.textContent()).toContain(node!.file!);
    const edges = (JSON.parse(workflow.graphJson) as { edges: Array<{ from: string; to: string }> }).edges;
    expect(edges.some((e) => e.to === 'wrap-up') && edges.some((e) => e.from === 'wrap-up')).toBe(true);

    await context.close();
  });
});
