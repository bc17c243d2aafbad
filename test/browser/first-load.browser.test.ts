// What a visitor downloads first, measured on the production build the browser suite serves
// (issue 19 item 6): the workflow editor and the Workbench within their goal, and the sign-in page
// near its old size.
import { beforeAll, expect, it } from 'vitest';
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

  it('the sign-in page carries neither zod nor the Workbench words: its first load is within 90 KiB gzipped', () => {
    expect(page('login page').gzip).toBeLessThanOrEqual(90 * KIB);
  });
});
