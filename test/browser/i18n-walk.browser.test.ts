/**
 * Every route of the app read in Chinese (a browser whose language is zh-CN): no sentence of the
 * English catalogue shows in any page's text, labels, titles or placeholders (the demo package's own
 * English content is fine), and axe-core finds no WCAG 2 A or AA violation on any of them. Words
 * that were never in the catalogue are looked for where they used to show (review R1): the agents'
 * revision badge, a new agent's field errors, the graph's edge labels and their screen-reader
 * labels, the persona's field names in the context sent, the sessions' target filter and modes.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeBrowser, useModelSuite } from './harness.ts';
import { axeViolations, englishOn } from './page-checks.ts';
import { WALKED, walkEveryRoute } from './route-walk.ts';

/** English words left outside the catalogue, per page of the walk. */
const LEFTOVERS: Record<string, (page: Page) => Promise<string[]>> = {
  agents: async (page) => {
    const found: string[] = [];
    const badge = (await page.getByTestId('agents-revision').textContent()) ?? '';
    if (/revision/iu.test(badge)) found.push(`badge: ${badge}`);
    // A new agent's form shows no problem before anything is typed (review R2) …
    if ((await page.locator('[data-testid="agent-form"] .field-error').count()) > 0) found.push('field errors before anything was typed');
    // … and a field's problem, once it is there, in Chinese.
    const name = page.getByTestId('agent-metadata-name');
    await name.fill('x');
    await name.fill('');
    await name.blur();
    await page.locator('[data-testid="agent-form"] .field-error').first().waitFor();
    for (const error of await page.locator('[data-testid="agent-form"] .field-error').allTextContents()) if (/must|empty|at least/iu.test(error)) found.push(`field error: ${error}`);
    return found;
  },
  workflow: async (page) => {
    const found: string[] = [];
    await page.getByTestId('graph-edge').first().waitFor({ state: 'attached' });
    for (const label of await page.locator('[data-testid="graph-edge"]').evaluateAll((all) => all.map((e) => e.getAttribute('aria-label') ?? ''))) if (/^Edge from/u.test(label)) found.push(`edge label: ${label}`);
    const text = (await page.getByTestId('workflow-graph').textContent()) ?? '';
    if (/\(no label\)|· default/u.test(text)) found.push('edge text: (no label) / · default');
    return found;
  },
  'workbench with a staged change': async (page) => {
    const persona = (await page.getByTestId('context-persona').textContent()) ?? '';
    return /\b[a-z]+_[a-z_]+\b/u.test(persona) ? [`persona: ${persona}`] : [];
  },
  sessions: async (page) => {
    const found: string[] = [];
    const options = await page.locator('[data-testid="sessions-filter-target"] option').allTextContents();
    for (const option of options) if (/^(workflow|step|agent|asset)$/u.test(option.trim())) found.push(`target option: ${option}`);
    for (const row of await page.getByTestId('session-open').allTextContents()) if (/\b(create|optimize)\b/u.test(row)) found.push(`session row: ${row}`);
    return found;
  },
};

describeBrowser('every route in Chinese (browser)', () => {
  const started = useModelSuite();

  it('shows no English catalogue sentence and no axe WCAG 2 A/AA violation on any page', { timeout: 240_000 }, async () => {
    const found: Record<string, { english: string[]; axe: string[] }> = {};
    const visited: string[] = [];
    await walkEveryRoute(started, 'zh-CN', async (name, page) => {
      visited.push(name);
      expect(await page.evaluate(() => document.documentElement.lang), name).toBe('zh-CN');
      const english = await englishOn(page);
      const axe = (await axeViolations(page)).map((v) => `${v.rule}: ${v.nodes.join(' | ')}`);
      english.push(...((await LEFTOVERS[name]?.(page)) ?? []));
      if (english.length > 0 || axe.length > 0) found[name] = { english, axe };
    });
    expect(visited).toEqual(expect.arrayContaining(WALKED));
    expect(found).toEqual({});
  });
});
