/**
 * The workbench's bars pinned below the top bar (the target bar on a wide window, the tabs on a
 * phone) sit right under it however tall it is: on a phone its items wrap onto a second line, and
 * the pinned bar neither slides under it nor leaves a gap above it, in both languages.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeBrowser, useDemoSuite } from './harness.ts';

const WF = 'vendor-intake';
const NOTE = 'assets/templates/zz-pinned-bars.md';
const longNote = `# Pinned bars\n\n${Array.from({ length: 160 }, (_, i) => `Line ${i + 1} of the note.`).join('\n')}\n`;

/** The top bar's box and the pinned bar's, in the window. */
const boxes = (page: Page, barTestId: string) =>
  page.evaluate((id) => {
    const top = document.querySelector<HTMLElement>('[data-testid="top-bar"]')!.getBoundingClientRect();
    const bar = document.querySelector<HTMLElement>(`[data-testid="${id}"]`)!;
    const rect = bar.getBoundingClientRect();
    return { topBarBottom: top.bottom, topBarHeight: top.height, barTop: rect.top, pinned: getComputedStyle(bar).position === 'sticky' };
  }, barTestId);

describeBrowser('bars pinned below the top bar (browser)', () => {
  const started = useDemoSuite();

  it('pins the target bar and the tabs right under the top bar, on a wide window and a phone whose top bar wraps', { timeout: 180_000 }, async () => {
    const page = await started.signedInPage();
    const base = started.suite.product.url;
    const api = `${base}/api/projects/${started.projectId}`;
    // A session with a long staged file: the page is long enough to scroll the bars into their pins.
    const created = await page.request.post(`${api}/ai/sessions`, { data: { workflowId: WF, targetType: 'step', targetId: 'merge-findings', mode: 'optimize' }, headers: { origin: base } });
    expect(created.status()).toBe(201);
    const sessionId = ((await created.json()) as { data: { sessionId: string } }).data.sessionId;
    const staged = await page.request.post(`${api}/ai/sessions/${sessionId}/stage`, {
      headers: { origin: base },
      data: { changeSet: { schemaVersion: '1.0', targetType: 'step', mode: 'optimize', operations: [{ op: 'upsert', targetType: 'asset', target: { path: NOTE }, payload: { content: longNote } }] } },
    });
    expect(staged.status()).toBe(200);
    const url = `/builder/${started.projectId}/ai-workbench?workflowId=${WF}&targetType=step&targetId=merge-findings&mode=optimize`;

    const heights: number[] = [];
    for (const { viewport, bar } of [
      { viewport: { width: 1280, height: 800 }, bar: 'workbench-target' },
      { viewport: { width: 390, height: 844 }, bar: 'workbench-tabs' },
    ]) {
      await page.setViewportSize(viewport);
      await page.goto(url);
      if (viewport.width < 700) await page.getByTestId('workbench-tab-changes').click();
      for (const language of ['en', 'zh']) {
        await page.getByTestId('language-switch').selectOption(language);
        await page.locator(`html[lang^="${language}"]`).waitFor({ state: 'attached' });
        await page.locator(`[data-testid="changed-file"][data-key="asset:${NOTE}"] [data-testid="code-diff"][data-phase="ready"]`).waitFor();
        await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight / 2));
        const seen = await boxes(page, bar);
        expect(seen.pinned).toBe(true);
        // Right under the top bar: not under it, and no gap between them.
        expect(Math.abs(seen.barTop - seen.topBarBottom)).toBeLessThanOrEqual(1);
        heights.push(seen.topBarHeight);
      }
    }
    // The phone's top bar wraps: taller than the wide window's, which is the case a fixed offset gets wrong.
    expect(Math.max(...heights.slice(2))).toBeGreaterThan(Math.max(...heights.slice(0, 2)) + 10);
  });
});
