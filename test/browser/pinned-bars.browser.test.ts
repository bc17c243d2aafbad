/**
 * The workbench's bars pinned below the top bar (the target bar on a wide window, the tabs on a
 * phone) sit right under it however tall it is: on a phone its items wrap onto a second line, and
 * the pinned bar neither slides under it nor leaves a gap above it, in both languages. The next
 * file brought into view lands just below those bars, with no room kept for a file header that
 * will not be pinned over it.
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

  /** A session on `step` with long new notes staged (the page scrolls far); its workbench address. */
  async function stagedNotes(page: Page, step: string, paths: string[]): Promise<string> {
    const base = started.suite.product.url;
    const api = `${base}/api/projects/${started.projectId}`;
    const created = await page.request.post(`${api}/ai/sessions`, { data: { workflowId: WF, targetType: 'step', targetId: step, mode: 'optimize' }, headers: { origin: base } });
    expect(created.status()).toBe(201);
    const sessionId = ((await created.json()) as { data: { sessionId: string } }).data.sessionId;
    const operations = paths.map((path) => ({ op: 'upsert', targetType: 'asset', target: { path }, payload: { content: longNote } }));
    const staged = await page.request.post(`${api}/ai/sessions/${sessionId}/stage`, {
      headers: { origin: base },
      data: { changeSet: { schemaVersion: '1.0', targetType: 'step', mode: 'optimize', operations } },
    });
    expect(staged.status()).toBe(200);
    return `/builder/${started.projectId}/ai-workbench?workflowId=${WF}&targetType=step&targetId=${step}&mode=optimize`;
  }

  it('pins the target bar and the tabs right under the top bar, on a wide window and a phone whose top bar wraps', { timeout: 180_000 }, async () => {
    const page = await started.signedInPage();
    const url = await stagedNotes(page, 'merge-findings', [NOTE]);

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

  it('brings the next file to just below the pinned bars, without room for a file header that is not pinned over it', { timeout: 180_000 }, async () => {
    const page = await started.signedInPage();
    const second = 'assets/templates/zz-pinned-bars-2.md';
    await page.goto(await stagedNotes(page, 'capture-request', [NOTE, second]));
    await page.getByTestId('changed-file').nth(1).waitFor();
    expect(await page.getByTestId('changed-file').count()).toBe(2);
    // The second file of the list, whichever order the pane lists them in.
    const file = page.getByTestId('changed-file').nth(1);
    for (const each of await page.getByTestId('changed-file').all()) await each.locator('[data-testid="code-diff"][data-phase="ready"]').waitFor();
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('n');
    await expect.poll(() => file.getAttribute('data-current')).toBe('true');
    // The file's own header is its top line, so only the page's bars (and the small gap) are above it.
    const place = () =>
      file.evaluate((li) => {
        const target = document.querySelector<HTMLElement>('[data-testid="workbench-target"]')!.getBoundingClientRect();
        return { gap: li.getBoundingClientRect().top - target.bottom };
      });
    await expect.poll(async () => (await place()).gap).toBeLessThanOrEqual(9);
    expect((await place()).gap).toBeGreaterThanOrEqual(0);
  });
});
