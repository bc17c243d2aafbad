/**
 * Chromium against the real product: upload a zip of a BMAD-METHOD folder, see the derived graph
 * in the preview, confirm, and open the imported workflow in the Builder.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadPackageDir } from '../fixtures/packages.ts';
import { describeBrowser, newUser, startSuite, type Suite } from './harness.ts';

const FOLDER = loadPackageDir(new URL('../fixtures/bmad-method/branches/', import.meta.url));

async function folderZip(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bmad-method-upload-'));
  const file = path.join(dir, 'validate.zip');
  await writeFile(file, zipSync(Object.fromEntries([...FOLDER].map(([name, text]) => [name, strToU8(text)]))));
  return file;
}

describeBrowser('BMAD-METHOD import in the browser', () => {
  let suite: Suite;

  beforeAll(async () => {
    suite = await startSuite();
  });

  afterAll(async () => {
    await suite?.close();
  });

  it('previews the derived graph, writes nothing on cancel, and opens the confirmed workflow in the Builder', async () => {
    const { product } = suite;
    const context = await suite.newContext();
    const page = await context.newPage();
    const user = newUser('Bmad');
    expect((await context.request.post(`${product.url}/api/auth/register`, { data: user, headers: { origin: product.url } })).status()).toBe(201);
    await page.goto('/projects');

    await page.getByTestId('import-file').setInputFiles(await folderZip());
    await page.getByTestId('import-submit').click();
    const preview = page.getByTestId('import-preview');
    await preview.waitFor();
    expect(await preview.getAttribute('data-layout')).toBe('bmad-method');
    await expect.poll(() => preview.getByTestId('graph-node').count()).toBe(7);
    expect(await preview.locator('[data-testid="graph-node"][data-node-type="decision"]').count()).toBe(1);
    expect(await preview.locator('.svelte-flow__edge-label', { hasText: '[D] Parity Check' }).count()).toBe(1);
    expect(await preview.getByTestId('import-preview-warning-list').textContent()).toContain('placeholder agent');

    // Cancel writes nothing.
    await page.getByTestId('import-cancel').click();
    const listed = await context.request.get(`${product.url}/api/projects`);
    expect(((await listed.json()) as { data: { projects: unknown[] } }).data.projects).toEqual([]);

    await page.getByTestId('import-file').setInputFiles(await folderZip());
    await page.getByTestId('import-submit').click();
    await page.getByTestId('import-confirm').click();
    await page.getByTestId('import-done').waitFor();
    await page.getByTestId('import-open').click();
    await page.getByTestId('workflow-link').first().click();
    await page.getByTestId('workflow-graph').waitFor();
    await expect.poll(() => page.getByTestId('graph-node').count()).toBe(7);
    await page.locator('[data-testid="graph-node"][data-node-id="step-02-route"]').click();
    await expect.poll(async () => (await page.textContent('body')) ?? '').toContain('Format Detection');
  });
});
