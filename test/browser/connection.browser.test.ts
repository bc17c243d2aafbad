/**
 * The workbench's live connection when the network goes (review M1): the browser's offline event
 * turns "Live" into "Reconnecting…" at once and the presence list goes; a line comment written
 * offline says it waits for the connection and is posted when it is back; a socket that silently
 * stops carrying frames (no close) is found by the keep-alive and replaced.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEMO_USER, seedDemo } from '../../scripts/seed-demo.ts';
import { describeBrowser, useModelSuite } from './harness.ts';

const WF = 'vendor-intake';
const STEP = 'capture-request';
const STEP_KEY = `step:${WF}/${STEP}`;

describeBrowser('the live connection when the network goes (browser)', () => {
  const started = useModelSuite();
  const contexts: BrowserContext[] = [];
  let projectId: string;
  let workbench: string;

  beforeAll(async () => {
    const base = started.suite.product.url;
    ({ projectId } = await seedDemo(base, { scriptedModelUrl: started.model.url }));
    // A session with a staged change to the step, so there is a diff to comment on.
    const context = await signedIn();
    const api = `${base}/api/projects/${projectId}`;
    const json = async (res: { json(): Promise<unknown> }) => ((await res.json()) as { data: any }).data;
    const step = await json(await context.request.get(`${api}/workflows/${WF}/steps/${STEP}`));
    const created = await context.request.post(`${api}/ai/sessions`, { data: { workflowId: WF, targetType: 'step', targetId: STEP, mode: 'optimize' }, headers: { origin: base } });
    expect(created.status()).toBe(201);
    const staged = `${(step.step.markdown as string).replace(/\n*$/, '')}\n\nAdded while testing the connection.\n`;
    const stage = await context.request.post(`${api}/ai/sessions/${(await json(created)).sessionId}/stage`, {
      headers: { origin: base },
      data: { changeSet: { schemaVersion: '1.0', targetType: 'step', mode: 'optimize', operations: [{ op: 'upsert', targetType: 'step', target: { workflowId: WF, nodeId: STEP }, payload: { stepMarkdown: staged } }] } },
    });
    expect(stage.status()).toBe(200);
    workbench = `/builder/${projectId}/ai-workbench?workflowId=${WF}&targetType=step&targetId=${STEP}&mode=optimize`;
  });

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
  });

  async function signedIn(): Promise<BrowserContext> {
    const base = started.suite.product.url;
    const context = await started.suite.newContext();
    contexts.push(context);
    const login = await context.request.post(`${base}/api/auth/login`, { data: { email: DEMO_USER.email, password: DEMO_USER.password }, headers: { origin: base } });
    expect(login.status()).toBe(200);
    return context;
  }

  const status = (page: Page) => page.getByTestId('live-status').getAttribute('data-status');

  it('says it is reconnecting while offline, holds a comment written then, and posts it once back', { timeout: 180_000 }, async () => {
    const context = await signedIn();
    const page = await context.newPage();
    await page.goto(workbench);
    await expect.poll(() => status(page), { timeout: 30_000 }).toBe('open');
    await page.getByTestId('presence-alone').waitFor();

    await context.setOffline(true);
    await expect.poll(() => status(page)).not.toBe('open');
    expect(await page.getByTestId('presence-alone').count()).toBe(0);

    // A comment written offline says it waits, and is not lost.
    const file = page.locator(`[data-testid="changed-file"][data-key="${STEP_KEY}"]`);
    await file.getByTestId('diff-mode-text').click();
    const added = file.locator('[data-testid="file-patch"] .line.add').last();
    await added.hover();
    await added.getByTestId('diff-comment-line').click();
    await file.getByTestId('line-comment-input').fill('Written while offline.');
    await file.getByTestId('line-comment-submit').click();
    await file.getByTestId('line-comment-waiting').waitFor();
    await page.getByTestId('comment-waiting').waitFor();

    await context.setOffline(false);
    await expect.poll(() => status(page), { timeout: 30_000 }).toBe('open');
    const thread = page.getByTestId('review-thread').filter({ hasText: 'Written while offline.' });
    await thread.waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('comment-waiting').count()).toBe(0);
    expect(await page.getByTestId('review-error').count()).toBe(0);
  });

  it('notices a socket that silently stopped carrying frames and connects again', { timeout: 180_000 }, async () => {
    const context = await signedIn();
    const page = await context.newPage();
    // Every socket goes through this route; `silent` drops every frame both ways without closing.
    let silent = false;
    let sockets = 0;
    await page.routeWebSocket(/\/ws$/u, (ws) => {
      sockets += 1;
      const server = ws.connectToServer();
      ws.onMessage((message) => {
        if (!silent) server.send(message);
      });
      server.onMessage((message) => {
        if (!silent) ws.send(message);
      });
    });
    await page.goto(workbench);
    await expect.poll(() => status(page), { timeout: 30_000 }).toBe('open');
    expect(sockets).toBe(1);

    // Every status the indicator shows from now on (a replacement may open again within moments).
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { seen: string[] }).seen = seen;
      const target = document.querySelector('[data-testid="live-status"]')!;
      new MutationObserver(() => seen.push(target.getAttribute('data-status') ?? '')).observe(target, { attributes: true, attributeFilter: ['data-status'] });
    });
    silent = true;
    await expect.poll(() => sockets, { timeout: 60_000 }).toBeGreaterThan(1);
    silent = false;
    expect(await page.evaluate(() => (window as unknown as { seen: string[] }).seen)).toContain('reconnecting');
    await expect.poll(() => status(page), { timeout: 60_000 }).toBe('open');
  });
});
