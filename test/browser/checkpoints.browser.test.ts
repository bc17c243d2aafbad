/**
 * Restoring a checkpoint in the Workbench (issue 16): the demo model makes two versions of a step;
 * the owner compares version 1 with version 2 in the versions timeline, restores version 1 through
 * its confirmation dialog, and the draft is version 1's text again as a new version; Apply then
 * writes exactly that text to the project.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEMO_USER, seedDemo } from '../../scripts/seed-demo.ts';
import { describeBrowser, useModelSuite } from './harness.ts';

const WF = 'vendor-intake';
const STEP = 'capture-request';
const STEP_KEY = `step:${WF}/${STEP}`;

describeBrowser('restoring a checkpoint (browser)', () => {
  const started = useModelSuite();
  const contexts: BrowserContext[] = [];
  let projectId: string;

  beforeAll(async () => {
    ({ projectId } = await seedDemo(started.suite.product.url, { scriptedModelUrl: started.model.url }));
  });

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
  });

  async function ownerPage(): Promise<Page> {
    const base = started.suite.product.url;
    const context = await started.suite.newContext();
    contexts.push(context);
    const login = await context.request.post(`${base}/api/auth/login`, { data: { email: DEMO_USER.email, password: DEMO_USER.password }, headers: { origin: base } });
    expect(login.status()).toBe(200);
    const profile = await context.request.put(`${base}/api/users/me/llm-profile`, {
      data: { provider: 'openai-compatible', preset: 'scripted-demo', baseUrl: started.model.url, model: 'scripted-demo', apiKey: 'sk-local-demo-key', timeoutSeconds: 60, contextWindow: 128000 },
      headers: { origin: base },
    });
    expect(profile.status()).toBe(200);
    return context.newPage();
  }

  async function turn(page: Page, message: string, version: number): Promise<void> {
    await page.getByLabel('Message', { exact: true }).fill(message);
    await page.getByTestId('composer-send').click();
    await page.locator(`[data-testid="changes-version"][data-version="${version}"]`).waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="turn-status"][data-running="false"]').waitFor({ timeout: 30_000 });
  }

  it('brings back the earlier draft as a new version, and Apply applies exactly that', { timeout: 180_000 }, async () => {
    const base = started.suite.product.url;
    const page = await ownerPage();
    await page.goto(`/projects/${projectId}/workflows/${WF}?node=${STEP}`);
    await page.locator('[data-testid="step-ai-links"] [data-testid="ai-workbench-link"][data-mode="optimize"]').click();
    await page.waitForURL(/\/builder\/[^/]+\/ai-workbench\?/);
    await turn(page, 'Please improve this.', 1);
    const sessionId = await page.getByTestId('workbench').getAttribute('data-session-id');
    const api = `${base}/api/projects/${projectId}/ai/sessions/${sessionId}`;
    const stagedText = async (): Promise<string> => {
      const changes = (await (await page.request.get(`${api}/changes`)).json()) as { data: { files: Array<{ key: string; after: string }> } };
      return changes.data.files.find((f) => f.key === STEP_KEY)!.after;
    };
    const first = await stagedText();
    await turn(page, 'make it shorter', 2);
    const second = await stagedText();
    expect(second).not.toBe(first);

    // ---- The timeline lists both; comparing version 1 with version 2 shows the step's diff.
    const timeline = page.getByTestId('versions-timeline');
    const item = (version: number) => timeline.locator(`[data-testid="version-item"][data-version="${version}"]`);
    await item(2).waitFor();
    expect(await item(1).getByTestId('version-who').textContent()).toBe('AI');
    await item(1).getByTestId('version-compare').click();
    await item(1).getByTestId('version-compare-with').selectOption('2');
    await item(1).locator(`[data-testid="compare-file"][data-key="${STEP_KEY}"] [data-testid="file-diff"]`).waitFor();

    // ---- Restore version 1, confirmed in the dialog: version 3 holds version 1's text again.
    await item(1).getByTestId('version-restore').click();
    await page.getByTestId('restore-dialog').getByTestId('restore-confirm').click();
    await page.locator('[data-testid="changes-version"][data-version="3"]').waitFor({ timeout: 30_000 });
    await item(3).waitFor();
    expect(await item(3).getAttribute('data-source')).toBe('restore');
    expect(await item(3).getByTestId('version-who').textContent()).toBe(`${DEMO_USER.name} restored version 1`);
    expect(await stagedText()).toBe(first);

    // ---- Apply writes exactly the restored text.
    await page.locator('[data-testid="validation-status"][data-valid="true"]').waitFor({ timeout: 30_000 });
    const apply = page.getByTestId('apply-button');
    await expect.poll(() => apply.isEnabled()).toBe(true);
    await apply.click();
    await page.getByTestId('apply-result').waitFor();
    const step = (await (await page.request.get(`${base}/api/projects/${projectId}/workflows/${WF}/steps/${STEP}`)).json()) as { data: { step: { markdown: string } } };
    expect(step.data.step.markdown).toBe(first);
  });
});
