/**
 * Every route of the app read in Chinese (a browser whose language is zh-CN): no sentence of the
 * English catalogue shows in any page's text, labels, titles or placeholders (the demo package's own
 * English content is fine), and axe-core finds no WCAG 2 A or AA violation on any of them.
 */
import { expect, it } from 'vitest';
import { describeBrowser, useModelSuite } from './harness.ts';
import { axeViolations, englishOn } from './page-checks.ts';
import { WALKED, walkEveryRoute } from './route-walk.ts';

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
      if (english.length > 0 || axe.length > 0) found[name] = { english, axe };
    });
    expect(visited).toEqual(expect.arrayContaining(WALKED));
    expect(found).toEqual({});
  });
});
