// What a visitor downloads first, measured on the production build the browser suite serves
// (issue 19 item 6): the workflow editor and the Workbench within their goal, and the sign-in page
// near its old size.
import { readFile } from 'node:fs/promises';
import { beforeAll, expect, it } from 'vitest';
import { zh } from '../../app/lib/i18n/zh.ts';
import { pageFirstLoads, type Size } from '../../scripts/bundle-sizes.ts';
import { describeBrowser } from './harness.ts';
import { ensureSpaBuilt } from './product.ts';

const KIB = 1024;

describeBrowser('first load (production build)', () => {
  let pages: Size[] = [];
  beforeAll(async () => {
    await ensureSpaBuilt();
    pages = await pageFirstLoads();
  });
  const page = (name: string) => pages.find((p) => p.name === name)!;

  it('the workflow editor loads the validators and YAML later: its first load is within 150 KiB gzipped', () => {
    expect(page('workflow editor').gzip).toBeLessThanOrEqual(150 * KIB);
  });

  it('the Workbench loads its socket, frame schemas and panes beside the session lookup: its first load is within 150 KiB gzipped', () => {
    expect(page('Workbench').gzip).toBeLessThanOrEqual(150 * KIB);
  });

  it('the sign-in page carries neither zod, the Workbench words nor the Chinese catalogue: its first load is within 80 KiB gzipped', () => {
    expect(page('login page').gzip).toBeLessThanOrEqual(80 * KIB);
  });

  it('no page’s first load carries the Chinese catalogue: a reader of Chinese loads it as a chunk of its own', async () => {
    // Sentences only the Chinese catalogue has, from the sign-in page and the AI settings.
    const chinese = [zh.login.lead, zh.llm.presets.local.keyHint];
    for (const loaded of pages) {
      for (const file of loaded.paths ?? []) {
        const text = await readFile(file, 'utf8');
        for (const sentence of chinese) expect(text.includes(sentence), `${loaded.name}: ${file}`).toBe(false);
      }
    }
    expect(pages.every((loaded) => (loaded.paths ?? []).length > 0)).toBe(true);
  });
});
