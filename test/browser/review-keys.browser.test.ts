/**
 * Reviewing a staged change from the keyboard and through live updates (an outside review's
 * findings): `j`/`k` move between changes wherever the focus is on the page, but not while the
 * person types; the change they bring into view lands below the pinned bars, not under them; a
 * long file's header pins just below those bars, not under them;
 * starting a comment puts the cursor in its box; files the reader left folded stay folded when a
 * new version arrives; the word that an undo was done shows where the reader is, in a live region;
 * and an undo reads as "Undo" in the versions list, not as someone's edits.
 */
import type { Locator, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { DEMO_USER } from '../../scripts/seed-demo.ts';
import { fileChangeHash, hunksOf } from '../../shared/ai/hunks.ts';
import { describeBrowser, useDemoSuite } from './harness.ts';

const WF = 'vendor-intake';
const POLICY = 'assets/policies/vendor-risk-policy.md';

type Op = { op: 'upsert'; targetType: string; target: Record<string, string>; payload: Record<string, string> };
const stepOp = (nodeId: string, stepMarkdown: string): Op => ({ op: 'upsert', targetType: 'step', target: { workflowId: WF, nodeId }, payload: { stepMarkdown } });
const assetOp = (path: string, content: string): Op => ({ op: 'upsert', targetType: 'asset', target: { path }, payload: { content } });
const longNote = (title: string) => `# ${title}\n\n${Array.from({ length: 120 }, (_, i) => `Line ${i + 1} of the note.`).join('\n')}\n`;

describeBrowser('reviewing from the keyboard and through live updates (browser)', () => {
  const started = useDemoSuite();
  const signedInPage = () => started.signedInPage();
  let projectId: string;

  beforeAll(() => {
    projectId = started.projectId;
  });

  const json = async (res: { json(): Promise<unknown> }) => ((await res.json()) as { data: any }).data;

  /** A session on a step of the demo workflow, its first version staged through the API. */
  async function stagedSession(page: Page, step: string, operations: Op[]) {
    const base = started.suite.product.url;
    const api = `${base}/api/projects/${projectId}`;
    const created = await page.request.post(`${api}/ai/sessions`, { data: { workflowId: WF, targetType: 'step', targetId: step, mode: 'optimize' }, headers: { origin: base } });
    expect(created.status()).toBe(201);
    const path = `${api}/ai/sessions/${(await json(created)).sessionId}`;
    const stage = async (ops: Op[]) => {
      const res = await page.request.post(`${path}/stage`, { headers: { origin: base }, data: { changeSet: { schemaVersion: '1.0', targetType: 'step', mode: 'optimize', operations: ops } } });
      expect(res.status()).toBe(200);
      return json(res);
    };
    await stage(operations);
    const file = async (key: string) => ((await json(await page.request.get(`${path}/changes`))).files as any[]).find((f) => f.key === key);
    return { api, path, stage, file, url: `/builder/${projectId}/ai-workbench?workflowId=${WF}&targetType=step&targetId=${step}&mode=optimize` };
  }

  async function readStep(page: Page, step: string): Promise<string> {
    const res = await page.request.get(`${started.suite.product.url}/api/projects/${projectId}/workflows/${WF}/steps/${step}`);
    return (await json(res)).step.markdown as string;
  }

  async function readPolicy(page: Page): Promise<string> {
    const res = await page.request.get(`${started.suite.product.url}/api/projects/${projectId}/assets/file?path=${encodeURIComponent(POLICY)}`);
    return (await json(res)).asset.content as string;
  }

  /** The bottom of the lowest bar pinned at the top of the window (position sticky or fixed, at its `top`). */
  const pinnedBottom = (page: Page) =>
    page.evaluate(() => {
      let bottom = 0;
      for (const el of document.querySelectorAll<HTMLElement>('*')) {
        const style = getComputedStyle(el);
        if (style.position !== 'sticky' && style.position !== 'fixed') continue;
        const rect = el.getBoundingClientRect();
        const top = parseFloat(style.top);
        if (rect.height === 0 || !Number.isFinite(top) || Math.abs(rect.top - top) > 1) continue;
        bottom = Math.max(bottom, rect.bottom);
      }
      return bottom;
    });

  /** The top of a staged line of a side-by-side diff, in the window (null: not drawn). */
  const lineTop = (diff: Locator, line: number) =>
    diff.evaluate((host, n) => {
      const numbers = host.querySelectorAll('.cm-mergeViewEditor')[1]?.querySelectorAll('.cm-lineNumbers .cm-gutterElement') ?? [];
      const cell = [...numbers].find((el) => el.textContent === String(n));
      return cell ? cell.getBoundingClientRect().top : null;
    }, line);

  /**
   * A changed file's header and the bars pinned at the top of the window: is the header pinned (at
   * its `top`), where is its box, how low do the other pinned bars reach, and is anything drawn over it.
   */
  const headerPin = (header: Locator) =>
    header.evaluate((own) => {
      let others = 0;
      for (const el of document.querySelectorAll<HTMLElement>('*')) {
        if (el === own || own.contains(el) || el.contains(own)) continue;
        const style = getComputedStyle(el);
        if (style.position !== 'sticky' && style.position !== 'fixed') continue;
        const rect = el.getBoundingClientRect();
        const top = parseFloat(style.top);
        if (rect.height === 0 || !Number.isFinite(top) || Math.abs(rect.top - top) > 1) continue;
        others = Math.max(others, rect.bottom);
      }
      const box = own.getBoundingClientRect();
      const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
      return { top: box.top, bottom: box.bottom, pinned: Math.abs(box.top - parseFloat(getComputedStyle(own).top)) <= 1, others, window: window.innerHeight, covered: !hit || !own.contains(hit) };
    });

  it('moves between changes with j and k from anywhere on the page, but not while the person types', { timeout: 180_000 }, async () => {
    const page = await signedInPage();
    const policy = await readPolicy(page);
    expect(policy).toContain('# Vendor Risk Policy');
    // Two changes apart (the cursor starts on line 1: a change there would be passed over by the first j).
    const draft = policy.replace('| Owner | Head of Procurement |', '| Owner | Head of Procurement (acting) |').replace('1.3 An existing vendor', '1.3 Any existing vendor');
    const session = await stagedSession(page, 'capture-request', [assetOp(POLICY, draft)]);
    const hunks = hunksOf(policy, draft);
    expect(hunks).toHaveLength(2);

    await page.goto(session.url);
    const diff = page.locator(`[data-testid="file-diff"][data-key="asset:${POLICY}"]`);
    await diff.locator('[data-testid="code-diff"][data-phase="ready"]').waitFor();
    const cursor = () => diff.getAttribute('data-cursor-line');

    // ---- Focus nowhere in particular (the page itself): j and k still move.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('j');
    await expect.poll(cursor).toBe(String(hunks[0]!.newStart));
    await page.keyboard.press('j');
    await expect.poll(cursor).toBe(String(hunks[1]!.newStart));
    await page.keyboard.press('k');
    await expect.poll(cursor).toBe(String(hunks[0]!.newStart));

    // ---- Typing in the message box is typing; a modifier is not navigation either.
    const message = page.locator('#workbench-message');
    await message.focus();
    await page.keyboard.type('jk');
    expect(await message.inputValue()).toBe('jk');
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('Alt+j');
    await page.keyboard.press('j');
    await expect.poll(cursor).toBe(String(hunks[1]!.newStart));
    expect(await message.inputValue()).toBe('jk');
  });

  it('brings the next change into view below the pinned bars, not under them', { timeout: 180_000 }, async () => {
    const page = await signedInPage();
    const policy = await readPolicy(page);
    const draft = policy.replace('| Version | 3.2, effective', '| Version | 3.3, effective').replace('2.1 The person who requests', '2.1 Whoever requests');
    const markdown = await readStep(page, 'decide-documents-complete');
    // The policy comes first; a long new note and a step after it make the page long.
    const session = await stagedSession(page, 'decide-documents-complete', [
      assetOp(POLICY, draft),
      assetOp('assets/templates/zz-review-notes.md', longNote('Review notes')),
      stepOp('decide-documents-complete', `${markdown.replace(/\n*$/, '')}\n\nChecked twice.\n`),
    ]);
    const hunks = hunksOf(policy, draft);
    expect(hunks).toHaveLength(2);

    await page.goto(session.url);
    const diff = page.locator(`[data-testid="file-diff"][data-key="asset:${POLICY}"]`);
    await diff.locator('[data-testid="code-diff"][data-mode="split"][data-phase="ready"]').waitFor();
    await page.locator('[data-testid="file-diff"][data-key="asset:assets/templates/zz-review-notes.md"] [data-testid="code-diff"][data-phase="ready"]').waitFor();
    await page.locator(`[data-testid="changed-file"][data-key="asset:${POLICY}"] summary`).focus();
    await page.keyboard.press('j');
    await expect.poll(() => diff.getAttribute('data-cursor-line')).toBe(String(hunks[0]!.newStart));

    // ---- Scrolled to the end of the page, the second change is out of sight above.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const second = hunks[1]!.newStart;
    const before = await lineTop(diff, second);
    expect(before === null || before < (await pinnedBottom(page))).toBe(true);

    await page.keyboard.press('j');
    await expect.poll(() => diff.getAttribute('data-cursor-line')).toBe(String(second));
    // Its line is below the lowest pinned bar (and in the window).
    await expect.poll(async () => ((await lineTop(diff, second)) ?? -1) >= (await pinnedBottom(page))).toBe(true);
    expect(await lineTop(diff, second)).toBeLessThan(await page.evaluate(() => window.innerHeight));
    // The policy's own header is one of those bars, pinned below the target bar: the line is below it too.
    const header = await headerPin(page.locator(`[data-testid="changed-file"][data-key="asset:${POLICY}"] summary`));
    expect(header.pinned).toBe(true);
    expect(await lineTop(diff, second)).toBeGreaterThanOrEqual(header.bottom);
  });

  it('puts the cursor in the comment box when a comment is started, by the pointer or the keyboard', { timeout: 180_000 }, async () => {
    const page = await signedInPage();
    const markdown = await readStep(page, 'enhanced-due-diligence');
    const staged = markdown.replace(/^# (.*)$/mu, '# $1 (revised)');
    expect(staged).not.toBe(markdown);
    const key = `step:${WF}/enhanced-due-diligence`;
    const session = await stagedSession(page, 'enhanced-due-diligence', [stepOp('enhanced-due-diligence', staged)]);
    const [hunk] = hunksOf(markdown, staged);

    await page.goto(session.url);
    const file = page.locator(`[data-testid="file-diff"][data-key="${key}"]`);
    const split = file.locator('[data-testid="code-diff"][data-mode="split"][data-phase="ready"]');
    await split.waitFor();
    const focused = () => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset['testid'] ?? null);

    // ---- The speech bubble on a hovered line.
    const stagedSide = split.locator('.cm-mergeViewEditor').nth(1);
    await stagedSide.locator('.cm-content .cm-line').filter({ hasText: '(revised)' }).hover();
    await stagedSide.locator(`[data-testid="diff-comment-line"][data-line="${hunk!.newStart}"]`).click();
    await file.getByTestId('line-comment-form').waitFor();
    await expect.poll(focused).toBe('line-comment-input');
    await page.keyboard.type('Typed at once.');
    expect(await file.getByTestId('line-comment-input').inputValue()).toBe('Typed at once.');
    await file.getByTestId('line-comment-form').getByRole('button', { name: 'Cancel' }).click();
    await file.getByTestId('line-comment-form').waitFor({ state: 'detached' });

    // ---- From the keyboard: j to the change, then "Comment on line N" beside the diff.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('j');
    const onLine = file.getByTestId('comment-cursor-line');
    await onLine.waitFor();
    await onLine.focus();
    await page.keyboard.press('Enter');
    await file.getByTestId('line-comment-form').waitFor();
    await expect.poll(focused).toBe('line-comment-input');
  });

  it('keeps the files the reader left folded folded when a new version arrives', { timeout: 180_000 }, async () => {
    const page = await signedInPage();
    const step = 'decide-risk-tier';
    const markdown = await readStep(page, step);
    const notes = ['a', 'b', 'c'].map((n) => `assets/notes/fold-${n}.md`);
    // Four files: past three the pane starts with every file folded.
    const session = await stagedSession(page, step, [stepOp(step, `${markdown.replace(/\n*$/, '')}\n\nOne more line.\n`), ...notes.map((p) => assetOp(p, `# ${p}\n`))]);

    await page.goto(session.url);
    const details = (key: string) => page.locator(`[data-testid="changed-file"][data-key="${key}"] > details`);
    const isOpen = (key: string) => details(key).evaluate((d) => (d as HTMLDetailsElement).open);
    const stepKey = `step:${WF}/${step}`;
    await details(stepKey).waitFor();
    expect(await isOpen(`asset:${notes[0]}`)).toBe(false);
    // The reader opens the step and leaves the notes folded.
    await details(stepKey).locator('summary').click();
    await expect.poll(() => isOpen(stepKey)).toBe(true);

    // ---- Someone undoes the third note: a new version of three files (at most three start open).
    const third = await session.file(`asset:${notes[2]}`);
    const undone = await page.request.post(`${session.path}/undo`, {
      headers: { origin: started.suite.product.url },
      data: { objectKey: `asset:${notes[2]}`, version: 1, fileHash: fileChangeHash(third.before, third.after) },
    });
    expect(undone.status()).toBe(201);
    await page.locator('[data-testid="changes-version"][data-version="2"]').waitFor();
    await page.locator(`[data-testid="changed-file"][data-key="asset:${notes[2]}"]`).waitFor({ state: 'detached' });
    expect(await isOpen(`asset:${notes[0]}`)).toBe(false);
    expect(await isOpen(`asset:${notes[1]}`)).toBe(false);
    expect(await isOpen(stepKey)).toBe(true);
  });

  it('says an undo was done where the reader is, in a live region, and lists it as "Undo"', { timeout: 180_000 }, async () => {
    const page = await signedInPage();
    await page.setViewportSize({ width: 1280, height: 700 });
    const step = 'quick-check';
    const markdown = await readStep(page, step);
    const staged = `${markdown.replace('# Quick check (low tier)', '# Quick check (low tier, revised)').replace(/\n*$/, '')}\n\nAdded at the end.\n`;
    const after = await readStep(page, 'standard-due-diligence');
    // A long change in the file after it: the pane's end is far below the step's controls.
    const rewritten = after.split('\n').map((line) => (line.startsWith('#') || line === '' || line === '---' ? line : `${line} (revised)`)).join('\n');
    const key = `step:${WF}/${step}`;
    const session = await stagedSession(page, step, [stepOp(step, staged), stepOp('standard-due-diligence', rewritten)]);
    const hunks = hunksOf(markdown, staged);
    expect(hunks).toHaveLength(2);

    await page.goto(session.url);
    const file = page.locator(`[data-testid="changed-file"][data-key="${key}"]`);
    await file.locator('[data-testid="code-diff"][data-phase="ready"]').waitFor();
    const undo = file.locator(`[data-testid="hunk"][data-hash="${hunks[0]!.hash}"] [data-testid="undo-hunk"]`);
    await undo.scrollIntoViewIfNeeded();
    await undo.click();

    const feedback = page.getByTestId('undo-feedback');
    await expect.poll(async () => (await feedback.textContent())?.trim() ?? '').toContain(`line ${hunks[0]!.newStart}`);
    expect(await feedback.getAttribute('aria-live')).toBe('polite');
    // In the window, and nothing drawn over it.
    const seen = await feedback.evaluate((el) => {
      const rect = el.getBoundingClientRect();
      const hit = document.elementFromPoint(rect.left + rect.width / 2, rect.top + rect.height / 2);
      return { top: rect.top, bottom: rect.bottom, height: window.innerHeight, covered: !hit || !el.contains(hit) };
    });
    expect(seen.top).toBeGreaterThanOrEqual(await pinnedBottom(page));
    expect(seen.bottom).toBeLessThanOrEqual(seen.height);
    expect(seen.covered).toBe(false);

    // ---- The versions list names the undo as such, in both languages.
    const who = page.locator('[data-testid="version-item"][data-version="2"] [data-testid="version-who"]');
    await expect.poll(() => who.textContent()).toBe(`${DEMO_USER.name} (Undo)`);
    expect(await page.locator('[data-testid="version-item"][data-version="2"]').getAttribute('data-source')).toBe('undo');
    await page.getByTestId('language-switch').selectOption('zh');
    // The Chinese words arrive with their catalogue (loaded on the first switch).
    await page.locator('html[lang^="zh"]').waitFor({ state: 'attached' });
    await expect.poll(() => who.textContent()).toBe(`${DEMO_USER.name}（撤销）`);
  });

  it("pins a long file's header just below the pinned bars, on a wide window and a phone, in both languages", { timeout: 240_000 }, async () => {
    // Last in the file: the language chosen here is saved on the account the other tests sign in with.
    const page = await signedInPage();
    const key = 'asset:assets/templates/zz-pinned-notes.md';
    const session = await stagedSession(page, 'merge-findings', [assetOp(key.slice('asset:'.length), longNote('Pinned notes'))]);
    const details = page.locator(`[data-testid="changed-file"][data-key="${key}"] > details`);
    const header = details.locator('summary');

    for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
      await page.setViewportSize(viewport);
      await page.goto(session.url);
      if (viewport.width < 700) await page.getByTestId('workbench-tab-changes').click();
      for (const language of ['en', 'zh']) {
        await page.getByTestId('language-switch').selectOption(language);
        await page.locator(`html[lang^="${language}"]`).waitFor({ state: 'attached' });
        await details.locator('[data-testid="code-diff"][data-phase="ready"]').waitFor();
        // The file starts far above the window's top (its diff is long): its header is pinned.
        await details.evaluate((d) => window.scrollBy(0, d.getBoundingClientRect().top + 400));
        await expect.poll(async () => (await headerPin(header)).pinned).toBe(true);
        const pin = await headerPin(header);
        expect(pin.others).toBeGreaterThan(0);
        // Below the lowest other pinned bar (no overlap), right under it, whole in the window, nothing over it.
        expect(pin.top).toBeGreaterThanOrEqual(pin.others);
        expect(pin.top).toBeLessThanOrEqual(pin.others + 1);
        expect(pin.bottom).toBeLessThanOrEqual(pin.window);
        expect(pin.covered).toBe(false);
      }
    }
  });
});
