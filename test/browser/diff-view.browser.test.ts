/**
 * The changes pane's diff view in Chromium (issue 16): a staged change of two hunks in a step and
 * an added asset. Side by side shows line numbers and a word-level highlight; `n` moves to the
 * next file and `j` between its hunks; undoing one hunk leaves the other, and the undo appears in
 * the pane's timeline with who did it. A reader who never chose a view gets side by side, and a
 * one-character change in the Chinese example package highlights that character alone (issue 17).
 */
import { strToU8, zipSync } from 'fflate';
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { DEMO_USER } from '../../scripts/seed-demo.ts';
import { loadPackageDir, PACKAGES_DIR } from '../fixtures/packages.ts';
import { hunksOf } from '../../shared/ai/hunks.ts';
import { diffView as zhDiff } from '../../app/lib/i18n/zh/diff-view.ts';
import { describeBrowser, useDemoSuite } from './harness.ts';

const WF = 'vendor-intake';
const STEP = 'capture-request';
const STEP_KEY = `step:${WF}/${STEP}`;
const ASSET_KEY = 'asset:assets/notes/diff-view.md';

describeBrowser('the diff view (browser)', () => {
  const started = useDemoSuite();
  const signedInPage = () => started.signedInPage();
  let projectId: string;

  beforeAll(() => {
    projectId = started.projectId;
  });

  it('shows line numbers and word highlights side by side, moves with n and j, and undoes one hunk into the timeline', { timeout: 180_000 }, async () => {
    const base = started.suite.product.url;
    const page = await signedInPage();
    const api = `${base}/api/projects/${projectId}`;
    const json = async (res: { json(): Promise<unknown> }) => ((await res.json()) as { data: any }).data;

    // ---- A session on the step, and a staged change: two hunks in the step, one added asset.
    const step = await json(await page.request.get(`${api}/workflows/${WF}/steps/${STEP}`));
    const markdown = (step.step.markdown as string).replace('# Capture the vendor request', '# Capture the vendor request carefully');
    const staged = `${markdown.replace(/\n*$/, '')}\n\nAdded at the end.\n`;
    const created = await page.request.post(`${api}/ai/sessions`, { data: { workflowId: WF, targetType: 'step', targetId: STEP, mode: 'optimize' }, headers: { origin: base } });
    expect(created.status()).toBe(201);
    const path = `${api}/ai/sessions/${(await json(created)).sessionId}`;
    const stage = await page.request.post(`${path}/stage`, {
      headers: { origin: base },
      data: {
        changeSet: {
          schemaVersion: '1.0',
          targetType: 'step',
          mode: 'optimize',
          operations: [
            { op: 'upsert', targetType: 'step', target: { workflowId: WF, nodeId: STEP }, payload: { stepMarkdown: staged } },
            { op: 'upsert', targetType: 'asset', target: { path: 'assets/notes/diff-view.md' }, payload: { content: '# Notes\n\nA new note.\n' } },
          ],
        },
      },
    });
    expect(stage.status()).toBe(200);
    const before = (await json(await page.request.get(`${path}/changes`))).files.find((f: any) => f.key === STEP_KEY);
    const hunks = hunksOf(before.before, before.after);
    expect(hunks).toHaveLength(2);

    await page.goto(`/builder/${projectId}/ai-workbench?workflowId=${WF}&targetType=step&targetId=${STEP}&mode=optimize`);
    const stepFile = page.locator(`[data-testid="changed-file"][data-key="${STEP_KEY}"]`);
    await stepFile.getByTestId('file-diff').waitFor();
    expect(await page.locator(`[data-testid="file-list-item"][data-key="${ASSET_KEY}"] .action`).textContent()).toBe('A');
    expect(await page.locator(`[data-testid="file-list-item"][data-key="${STEP_KEY}"]`).textContent()).toContain('+3−1');

    // ---- Side by side: line numbers on both sides and the added word highlighted.
    await stepFile.getByTestId('diff-mode-split').click();
    const split = stepFile.locator('[data-testid="code-diff"][data-mode="split"][data-phase="ready"]');
    await split.waitFor();
    expect(await split.locator('.cm-mergeView .cm-editor').count()).toBe(2);
    const numbers = await split.locator('.cm-mergeViewEditor').nth(1).locator('.cm-lineNumbers .cm-gutterElement').allTextContents();
    expect(numbers).toContain(String(hunks[0]!.newStart));
    const words = await split.locator('.cm-changedText').allTextContents();
    expect(words.join('')).toContain('carefully');
    // The choice is remembered for the next visit.
    expect(await page.evaluate(() => localStorage.getItem('workbench.diff-mode'))).toBe('split');

    // ---- The comment affordance is a speech bubble shown on the hovered line only, never a "+"
    // beside every line number (readers took unchanged lines for added ones).
    const stagedSide = split.locator('.cm-mergeViewEditor').nth(1);
    const bubbles = stagedSide.locator('[data-testid="diff-comment-line"]');
    expect(await bubbles.count()).toBeGreaterThan(1);
    expect((await bubbles.allTextContents()).join('')).not.toContain('+');
    expect(await bubbles.first().locator('svg').count()).toBe(1);
    const opacity = (line: number) => stagedSide.locator(`[data-testid="diff-comment-line"][data-line="${line}"]`).evaluate((b) => getComputedStyle(b).opacity);
    const target = hunks[0]!.newStart;
    await expect.poll(() => opacity(target)).toBe('0');
    await stagedSide.locator('.cm-content .cm-line').filter({ hasText: 'carefully' }).hover();
    await expect.poll(() => opacity(target)).toBe('1');
    const shown = await bubbles.evaluateAll((all) => all.filter((b) => getComputedStyle(b).opacity !== '0').map((b) => (b as HTMLElement).dataset['line']));
    expect(shown).toEqual([String(target)]);

    // ---- A language switch reaches the open diff: its folded-lines text and its screen-reader labels.
    const folded = () => split.locator('.cm-collapsedLines').first().textContent();
    const labels = async () => [await stagedSide.locator('.cm-content').getAttribute('aria-label'), await bubbles.first().getAttribute('aria-label')];
    expect(await folded()).toMatch(/unchanged lines/u);
    await page.getByTestId('language-switch').selectOption('zh');
    await expect.poll(folded).toMatch(/行未改动/u);
    await expect.poll(labels).toEqual([zhDiff.changesIn.replace('{{file}}', 'workflows/vendor-intake/steps/capture-request.md'), expect.stringMatching(/^评论第 \d+ 行$/u)]);
    await page.getByTestId('language-switch').selectOption('en');
    await expect.poll(folded).toMatch(/unchanged lines/u);
    expect((await labels())[1]).toMatch(/^Comment on line \d+$/u);

    // ---- "Semantic" is a switch of its own, not a fourth view: one view choice is pressed.
    expect(await stepFile.getByTestId('diff-mode-semantic').getAttribute('type')).toBe('checkbox');
    expect(await stepFile.locator('.modes [aria-pressed="true"]').count()).toBe(1);

    // ---- A kept change reads as accepted, never struck through (as if dismissed).
    const second = stepFile.locator(`[data-testid="hunk"][data-hash="${hunks[1]!.hash}"]`);
    await second.getByTestId('keep-hunk').click();
    await stepFile.locator(`[data-testid="hunk"][data-hash="${hunks[1]!.hash}"][data-kept="true"]`).waitFor();
    const decorations = await second.evaluate((li) => [li, ...li.querySelectorAll('*')].map((el) => getComputedStyle(el).textDecorationLine));
    expect(decorations).not.toContain('line-through');

    // ---- Keyboard: from the first file (the asset), n goes to the step; j steps through its hunks.
    await page.locator(`[data-testid="changed-file"][data-key="${ASSET_KEY}"] summary`).focus();
    await page.keyboard.press('n');
    await page.locator(`[data-testid="changed-file"][data-key="${STEP_KEY}"][data-current="true"]`).waitFor();
    const stepDiff = stepFile.getByTestId('file-diff');
    await page.keyboard.press('j');
    await expect.poll(() => stepDiff.getAttribute('data-cursor-line')).toBe(String(hunks[0]!.newStart));
    await page.keyboard.press('j');
    await expect.poll(() => stepDiff.getAttribute('data-cursor-line')).toBe(String(hunks[1]!.newStart));

    // ---- Undo the first hunk only: the second stays, and the timeline says who undid what.
    await stepFile.locator(`[data-testid="hunk"][data-hash="${hunks[0]!.hash}"] [data-testid="undo-hunk"]`).click();
    const entry = page.locator(`[data-testid="undo-timeline"] [data-testid="undo-entry"][data-key="${STEP_KEY}"]`);
    await entry.waitFor();
    expect(await entry.textContent()).toContain(DEMO_USER.name);
    const after = (await json(await page.request.get(`${path}/changes`))).files.find((f: any) => f.key === STEP_KEY);
    expect(hunksOf(after.before, after.after).map((h) => h.hash)).toEqual([hunks[1]!.hash]);
    await expect.poll(async () => (await split.locator('.cm-changedText').allTextContents()).join('')).not.toContain('carefully');
  });

  it('opens side by side by default and highlights the one Chinese character that changed, on each side', { timeout: 180_000 }, async () => {
    const base = started.suite.product.url;
    const page = await signedInPage();
    const json = async (res: { json(): Promise<unknown> }) => ((await res.json()) as { data: any }).data;

    // ---- The Chinese example package, imported as a .bmad zip.
    const files = loadPackageDir(new URL('zh-review/', PACKAGES_DIR));
    const zip = zipSync(Object.fromEntries([...files].map(([name, text]) => [name, strToU8(text)])));
    const imported = await page.request.post(`${base}/api/projects/import`, {
      headers: { origin: base },
      multipart: { file: { name: 'zh-review.bmad', mimeType: 'application/zip', buffer: Buffer.from(zip) } },
    });
    expect(imported.status()).toBe(201);
    const api = `${base}/api/projects/${(await json(imported)).project.id}`;

    // ---- One character of a Chinese clause changes: 目标用户 becomes 目标客户 (a clause shorter than
    // the eight characters @codemirror/merge scans when it widens a change to its whole word).
    const [wf, stepId] = ['req-review', 'collect-requirements'];
    const step = await json(await page.request.get(`${api}/workflows/${wf}/steps/${stepId}`));
    const sentence = '背景、目标用户、使用场景';
    expect(step.step.markdown).toContain(sentence);
    const staged = (step.step.markdown as string).replace(sentence, sentence.replace('用户', '客户'));
    const created = await page.request.post(`${api}/ai/sessions`, { data: { workflowId: wf, targetType: 'step', targetId: stepId, mode: 'optimize' }, headers: { origin: base } });
    expect(created.status()).toBe(201);
    const stage = await page.request.post(`${api}/ai/sessions/${(await json(created)).sessionId}/stage`, {
      headers: { origin: base },
      data: {
        changeSet: {
          schemaVersion: '1.0',
          targetType: 'step',
          mode: 'optimize',
          operations: [{ op: 'upsert', targetType: 'step', target: { workflowId: wf, nodeId: stepId }, payload: { stepMarkdown: staged } }],
        },
      },
    });
    expect(stage.status()).toBe(200);

    // ---- No view chosen in this browser: side by side, without a click.
    await page.goto(`/builder/${api.split('/').pop()}/ai-workbench?workflowId=${wf}&targetType=step&targetId=${stepId}&mode=optimize`);
    const stepFile = page.locator(`[data-testid="changed-file"][data-key="step:${wf}/${stepId}"]`);
    const split = stepFile.locator('[data-testid="code-diff"][data-mode="split"][data-phase="ready"]');
    await split.waitFor();
    const marked = (side: 0 | 1) => split.locator('.cm-mergeViewEditor').nth(side).locator('.cm-changedText').allTextContents();
    await expect.poll(() => marked(1)).toEqual(['客']);
    expect(await marked(0)).toEqual(['用']);
  });
});
