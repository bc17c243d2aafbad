/**
 * Chromium against the real product: the import preview says the name the project will get (in
 * English and in Chinese), with the number a taken name gets, and Confirm imports under it; the
 * export of a project with a Chinese name downloads under that name.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadFixture } from '../fixtures/packages.ts';
import { describeBrowser, newUser, startSuite, type Suite } from './harness.ts';

async function packageFile(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'import-name-'));
  const file = path.join(dir, 'support-desk.bmad');
  await writeFile(file, zipSync(Object.fromEntries([...loadFixture('two-workflows')].map(([name, text]) => [name, strToU8(text)]))));
  return file;
}

async function previewName(page: Page, file: string, typed = ''): Promise<{ name: string; taken: string | null }> {
  await page.getByTestId('import-file').setInputFiles(file);
  await page.getByTestId('import-name').fill(typed);
  await page.getByTestId('import-submit').click();
  const shown = page.getByTestId('import-preview-name');
  await shown.waitFor();
  const taken = page.getByTestId('import-preview-name-taken');
  return { name: (await shown.textContent()) ?? '', taken: (await taken.count()) > 0 ? await taken.textContent() : null };
}

describeBrowser('the import name and the export file name (browser)', () => {
  let suite: Suite;

  beforeAll(async () => {
    suite = await startSuite();
  });

  afterAll(async () => {
    await suite?.close();
  });

  it('previews the name the import will use, in English and Chinese, imports under it, and downloads a Chinese-named project under its name', async () => {
    const { product } = suite;
    const file = await packageFile();
    const user = newUser('ImportName');
    const context = await suite.browser.newContext({ baseURL: product.url, viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    expect((await context.request.post(`${product.url}/api/auth/register`, { data: user, headers: { origin: product.url } })).status()).toBe(201);
    const page = await context.newPage();
    await page.goto('/projects');

    const first = await previewName(page, file);
    expect(first.name).toContain('It will be imported as “support-desk”.');
    expect(first.taken).toBeNull();
    await page.getByTestId('import-confirm').click();
    await page.getByTestId('import-done').waitFor();

    // The second time the name is taken: the preview says so, and Confirm imports under the numbered name.
    const second = await previewName(page, file);
    expect(second.name).toContain('It will be imported as “support-desk (2)”.');
    expect(second.taken).toContain('You already have a project called “support-desk”');
    await page.getByTestId('import-confirm').click();
    await page.getByTestId('import-done').waitFor();
    expect(await page.getByTestId('import-done').textContent()).toContain('support-desk (2)');

    // In Chinese, and a typed Chinese name.
    const zh = await suite.browser.newContext({ baseURL: product.url, viewport: { width: 1280, height: 900 }, locale: 'zh-CN' });
    await zh.addCookies(await context.cookies());
    const zhPage = await zh.newPage();
    await zhPage.goto('/projects');
    expect((await previewName(zhPage, file)).name).toContain('将导入为“support-desk (3)”。');
    await zhPage.getByTestId('import-cancel').click();
    const typed = await previewName(zhPage, file, '客服工作台');
    expect(typed).toEqual({ name: expect.stringContaining('将导入为“客服工作台”。'), taken: null });
    await zhPage.getByTestId('import-confirm').click();
    await zhPage.getByTestId('import-done').waitFor();
    await zhPage.getByTestId('import-open').click();

    const download = zhPage.waitForEvent('download');
    await zhPage.getByTestId('export-button').click();
    expect((await download).suggestedFilename()).toBe('客服工作台.bmad');
  });
});
