/**
 * Moving a draft onto a new baseline in the browser (issue 15 item 5): the owner's session has a
 * staged draft of a step; someone saves the same line of that step in the Builder. The owner's
 * Workbench says the baseline moved and offers "Move draft onto the new baseline"; the viewer sees
 * the notice without the button. Moving reports a conflict; the owner takes both sides in the
 * resolver and saves; the notice's file list empties for both, and the staged text holds both lines.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEMO_USER, DEMO_VIEWER, seedDemo } from '../../scripts/seed-demo.ts';
import { describeBrowser, useModelSuite } from './harness.ts';

const WF = 'vendor-intake';
const STEP = 'capture-request';
const STEP_KEY = `step:${WF}/${STEP}`;
const LINE = '3. Where the requester does not know an answer, write "unknown"';
const DRAFT_LINE = '3. Where the requester cannot answer, write "unknown" and name who could';
const SAVED_LINE = '3. Where the requester does not know an answer, write "unknown (asked)"';

describeBrowser('moving a draft onto a new baseline (browser, owner and viewer)', () => {
  const started = useModelSuite();
  const contexts: BrowserContext[] = [];
  let projectId: string;

  async function signedInPage(user: { email: string; password: string }): Promise<Page> {
    const base = started.suite.product.url;
    const context = await started.suite.newContext();
    contexts.push(context);
    const login = await context.request.post(`${base}/api/auth/login`, { data: { email: user.email, password: user.password }, headers: { origin: base } });
    expect(login.status()).toBe(200);
    return context.newPage();
  }

  beforeAll(async () => {
    ({ projectId } = await seedDemo(started.suite.product.url, { scriptedModelUrl: started.model.url }));
  });

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
  });

  it('offers the move to the owner only, shows the conflict, and saves the resolution for everyone', { timeout: 120_000 }, async () => {
    const base = started.suite.product.url;
    const api = `${base}/api/projects/${projectId}`;
    const headers = { origin: base };
    const owner = await signedInPage(DEMO_USER);
    const viewer = await signedInPage(DEMO_VIEWER);

    // ---- A draft of the step is staged in the owner's session; then the same line is saved in the Builder.
    const created = await owner.request.post(`${api}/ai/sessions`, { data: { workflowId: WF, targetType: 'step', targetId: STEP, mode: 'optimize' }, headers });
    expect(created.status()).toBe(201);
    const sessionId = ((await created.json()) as { data: { sessionId: string } }).data.sessionId;
    const step = ((await (await owner.request.get(`${api}/workflows/${WF}/steps/${STEP}`)).json()) as { data: { step: { markdown: string } } }).data.step;
    expect(step.markdown).toContain(LINE);
    const changeSet = {
      schemaVersion: '1.0',
      targetType: 'step',
      mode: 'optimize',
      operations: [{ op: 'upsert', targetType: 'step', target: { workflowId: WF, nodeId: STEP }, payload: { stepMarkdown: step.markdown.replace(LINE, DRAFT_LINE) }, reason: 'clearer' }],
      impact: { objects: [STEP_KEY] },
    };
    expect((await owner.request.post(`${api}/ai/sessions/${sessionId}/stage`, { data: { changeSet }, headers })).status()).toBe(200);
    expect((await owner.request.put(`${api}/workflows/${WF}/steps/${STEP}`, { data: { markdown: step.markdown.replace(LINE, SAVED_LINE) }, headers })).status()).toBe(200);

    // ---- Both open the session; the owner is offered the move, the viewer only sees the notice.
    const url = `/builder/${projectId}/ai-workbench?workflowId=${WF}&targetType=step&targetId=${STEP}&mode=optimize`;
    for (const page of [owner, viewer]) {
      await page.goto(url);
      await page.locator(`[data-testid="workbench"][data-session-id="${sessionId}"]`).waitFor();
      await page.locator(`[data-testid="baseline-moved-file"][data-key="${STEP_KEY}"]`).waitFor();
    }
    await owner.getByTestId('rebase-button').waitFor();
    expect(await viewer.getByTestId('rebase-button').count()).toBe(0);

    // ---- Moving finds the conflict on the line both changed; the draft is left as it was.
    await owner.getByTestId('rebase-button').click();
    const resolver = owner.locator(`[data-testid="conflict-resolver"][data-key="${STEP_KEY}"]`);
    await resolver.waitFor();
    await owner.locator('[data-testid="rebase-outcome"][data-outcome="conflict"]').waitFor();
    expect(await resolver.getByTestId('conflict-region').count()).toBe(1);
    expect(await resolver.getByTestId('conflict-ours').textContent()).toContain(DRAFT_LINE);
    expect(await resolver.getByTestId('conflict-theirs').textContent()).toContain(SAVED_LINE);
    expect(await resolver.getByTestId('save-resolution').isDisabled()).toBe(true);
    expect(await viewer.getByTestId('conflict-resolver').count()).toBe(0);

    // ---- The owner takes both lines and saves: the file's baseline moves, for the viewer too.
    await resolver.getByTestId('take-both').click();
    const text = await resolver.getByTestId('resolution-text').inputValue();
    expect(text).toContain(`${DRAFT_LINE}`);
    expect(text).toContain(`${SAVED_LINE}`);
    expect(text).not.toContain('<<<<<<<');
    await resolver.getByTestId('save-resolution').click();
    await owner.locator(`[data-testid="rebase-done-file"][data-key="${STEP_KEY}"] [data-outcome="resolved"]`).waitFor();
    for (const page of [owner, viewer]) await expect.poll(() => page.getByTestId('baseline-moved-file').count(), { timeout: 15_000 }).toBe(0);

    const changes = (await (await owner.request.get(`${api}/ai/sessions/${sessionId}/changes`)).json()) as {
      data: { files: Array<{ after: string }>; baseline: { moved: unknown[] } };
    };
    expect(changes.data.baseline.moved).toEqual([]);
    expect(changes.data.files[0]!.after).toBe(text);
  });
});
