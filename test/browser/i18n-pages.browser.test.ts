/**
 * The pages outside the AI workbench in Chinese: a browser whose language is Chinese gets every
 * page's words from the Chinese catalogue — no sentence of the English catalogue shows — and a
 * form's error reads in Chinese too.
 */
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, newUser, registerViaApi, startSuite, type Suite } from './harness.ts';
import { PAGES_ENGLISH } from './page-checks.ts';

/** English catalogue sentences (two words or more, no placeholder) that would betray an untranslated page. */
function englishSentences(tree: object, out: string[] = []): string[] {
  for (const value of Object.values(tree)) {
    if (typeof value !== 'string') englishSentences(value as object, out);
    else if (!value.includes('{{') && !value.includes('<') && /[A-Za-z]{3,}\s[A-Za-z]{3,}/.test(value)) out.push(value);
  }
  return out;
}
// The product's name is the same in both languages.
const ENGLISH = englishSentences(PAGES_ENGLISH).filter((text) => !text.startsWith('CrewAgent'));

async function englishOn(page: Page): Promise<string[]> {
  const text = await page.evaluate(() => document.body.innerText);
  const titled = await page.evaluate(() =>
    [...document.querySelectorAll('[aria-label],[title],[placeholder]')].map((el) =>
      ['aria-label', 'title', 'placeholder'].map((name) => el.getAttribute(name) ?? '').join('\n'),
    ),
  );
  const shown = `${text}\n${titled.join('\n')}\n${await page.title()}`;
  return ENGLISH.filter((sentence) => shown.includes(sentence));
}

const AXE = createRequire(import.meta.url).resolve('axe-core');

/** axe's link-in-text-block: links in running text must not be told apart by colour alone. */
async function linksToldByColourOnly(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Array<{ nodes: Array<{ html: string }> }> }> } }).axe;
    const result = await axe.run(document, { runOnly: ['link-in-text-block'] });
    return result.violations.flatMap((v) => v.nodes.map((n) => n.html));
  });
}

describeBrowser('pages in Chinese (browser)', () => {
  let suite: Suite;

  beforeAll(async () => {
    suite = await startSuite();
  });

  afterAll(async () => {
    await suite?.close();
  });

  it('shows the projects list, a project’s pages and the AI settings without an English catalogue sentence', async () => {
    const context = await suite.browser.newContext({ baseURL: suite.product.url, locale: 'zh-CN', viewport: { width: 1280, height: 900 }, bypassCSP: true });
    const page = await context.newPage();
    const owner = newUser('Owner');
    await registerViaApi(suite.product, owner);

    await page.goto('/login');
    await page.locator('#login-email').fill(owner.email);
    await page.locator('#login-password').fill(owner.password);
    await page.locator('#login-password').press('Enter');
    await page.waitForURL('**/projects');
    await page.getByTestId('projects-empty').waitFor();
    expect(await page.getByTestId('projects-empty').textContent()).toContain('还没有项目');
    expect(await englishOn(page)).toEqual([]);

    // An empty name is refused in Chinese, next to its field.
    await page.getByTestId('create-project-submit').click();
    await page.locator('#project-name-error').waitFor();
    expect(await page.locator('#project-name-error').textContent()).toBe('请输入名称。');

    await page.locator('#project-name').fill(`报销审批 ${Date.now().toString(36)}`);
    await page.getByTestId('create-project-submit').click();
    await page.getByTestId('project-item').first().getByRole('link').first().click();
    await page.getByTestId('project-overview').waitFor();
    await page.getByTestId('validation-counts').waitFor();
    expect(await page.getByTestId('project-role').textContent()).toBe('所有者');
    expect(await englishOn(page)).toEqual([]);
    // The empty agents list links "新建一个" inside its sentence: underlined, not colour alone.
    expect(await linksToldByColourOnly(page)).toEqual([]);

    for (const tab of ['agents', 'assets', 'sessions', 'history', 'settings', 'members']) {
      await page.getByTestId(`tab-${tab}`).click();
      await page.waitForURL(new RegExp(`/${tab}`));
      await page.locator('main h1').waitFor();
      await page.waitForLoadState('networkidle');
      expect({ tab, english: await englishOn(page) }).toEqual({ tab, english: [] });
    }

    await page.getByTestId('nav-ai-settings').click();
    await page.getByTestId('llm-profile-form').waitFor();
    expect(await englishOn(page)).toEqual([]);
    await context.close();
  });
});
