// What a visitor downloads first, measured on the production build the browser suite serves
// (issue 19 item 6): the workflow editor and the Workbench within their goal, and the sign-in page
// near its old size.
import { readFile } from 'node:fs/promises';
import { beforeAll, expect, it } from 'vitest';
import { zh } from '../../app/lib/i18n/zh.ts';
import { llm as llmZh } from '../../app/lib/i18n/zh/llm.ts';
import { graph } from '../../app/lib/i18n/en/graph.ts';
import { llm } from '../../app/lib/i18n/en/llm.ts';
import { history } from '../../app/lib/i18n/en/history.ts';
import { importing } from '../../app/lib/i18n/en/importing.ts';
import { agentsPage } from '../../app/lib/i18n/en/agents.ts';
import { assetsPage } from '../../app/lib/i18n/en/assets.ts';
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

  it('the sign-in page carries no words of the pages it does not show: the graph’s, the AI settings’, the history’s, importing’s, the agents’ and assets’ pages’', async () => {
    // A sentence of each area added where it is shown (app/lib/i18n/*-words.ts).
    const elsewhere = [graph.step.noFile, llm.timeoutHint, history.filterPlaceholder, importing.packageFileHint, agentsPage.pickHint, assetsPage.pickHintEdit];
    const files = page('login page').paths ?? [];
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      for (const sentence of elsewhere) expect(text.includes(sentence), `${file}: ${sentence}`).toBe(false);
    }
  });

  it('no page’s first load carries the Chinese catalogue: a reader of Chinese loads it as a chunk of its own', async () => {
    // Sentences only the Chinese catalogue has, from the sign-in page and the AI settings.
    const chinese = [zh.login.lead, llmZh.presets.local.keyHint];
    for (const loaded of pages) {
      for (const file of loaded.paths ?? []) {
        const text = await readFile(file, 'utf8');
        for (const sentence of chinese) expect(text.includes(sentence), `${loaded.name}: ${file}`).toBe(false);
      }
    }
    expect(pages.every((loaded) => (loaded.paths ?? []).length > 0)).toBe(true);
  });
});
