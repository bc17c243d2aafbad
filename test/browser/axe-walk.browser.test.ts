/**
 * Every route of the app read in English: axe-core finds no WCAG 2 A or AA violation on any page
 * (the Chinese walk, i18n-walk.browser.test.ts, checks the same pages in Chinese).
 */
import { expect, it } from 'vitest';
import { describeBrowser, useModelSuite } from './harness.ts';
import { axeViolations } from './page-checks.ts';
import { WALKED, walkEveryRoute } from './route-walk.ts';

describeBrowser('every route in English (browser)', () => {
  const started = useModelSuite();

  it('has no axe WCAG 2 A/AA violation on any page', { timeout: 240_000 }, async () => {
    const found: Record<string, string[]> = {};
    const visited: string[] = [];
    await walkEveryRoute(started, 'en-US', async (name, page) => {
      visited.push(name);
      expect(await page.evaluate(() => document.documentElement.lang), name).toBe('en');
      const axe = (await axeViolations(page)).map((v) => `${v.rule}: ${v.nodes.join(' | ')}`);
      if (axe.length > 0) found[name] = axe;
    });
    expect(visited).toEqual(expect.arrayContaining(WALKED));
    expect(found).toEqual({});
  });
});
