/**
 * The language switch in the top bar is remembered: a switch to 简体中文 shows at once, survives a
 * reload, and is saved on the account, so signing in on another browser (whose language is English
 * and which has never seen the choice) opens in Chinese too; switching back there sticks as well.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { en } from '../../app/lib/i18n/en.ts';
import { zh } from '../../app/lib/i18n/zh.ts';
import { describeBrowser, newUser, registerViaApi, startSuite, type Suite } from './harness.ts';

/** The projects page's heading and the document's language. */
async function projectsPageIn(page: Page): Promise<{ heading: string | null; lang: string }> {
  await page.locator('main h1').waitFor();
  return { heading: await page.locator('main h1').textContent(), lang: await page.evaluate(() => document.documentElement.lang) };
}

const ENGLISH = { heading: en.projects.title, lang: 'en' };
const CHINESE = { heading: zh.projects.title, lang: 'zh-CN' };

describeBrowser('the language switch (browser)', () => {
  let suite: Suite;

  beforeAll(async () => {
    suite = await startSuite();
  });

  afterAll(async () => {
    await suite?.close();
  });

  it('keeps the chosen language across reloads and across sign-in on another browser', { timeout: 120_000 }, async () => {
    const base = suite.product.url;
    const user = newUser('Switcher');
    await registerViaApi(suite.product, user);
    const signIn = async (page: Page) => {
      await page.goto('/login');
      await page.locator('#login-email').fill(user.email);
      await page.locator('#login-password').fill(user.password);
      await page.locator('#login-password').press('Enter');
      await page.waitForURL('**/projects');
    };
    const accountLocale = async (page: Page) => {
      const response = await page.context().request.get(`${base}/api/auth/me`);
      return ((await response.json()) as { data: { user: { locale?: string } } }).data.user.locale ?? null;
    };

    // ---- First browser, in English: switch to Chinese; it shows at once and survives a reload.
    const first = await suite.browser.newContext({ baseURL: base, locale: 'en-US' });
    const page = await first.newPage();
    await signIn(page);
    expect(await projectsPageIn(page)).toEqual(ENGLISH);
    await page.getByTestId('language-switch').selectOption('zh');
    await expect.poll(() => projectsPageIn(page)).toEqual(CHINESE);
    await expect.poll(() => accountLocale(page)).toBe('zh');
    await page.reload();
    expect(await projectsPageIn(page)).toEqual(CHINESE);
    expect(await page.getByTestId('language-switch').inputValue()).toBe('zh');

    // ---- Another browser, English and fresh: the sign-in page is English, the account brings Chinese.
    const second = await suite.browser.newContext({ baseURL: base, locale: 'en-US' });
    const other = await second.newPage();
    await other.goto('/login');
    await other.getByTestId('login-form').waitFor();
    expect(await other.locator('#login-title').textContent()).toBe(en.login.title);
    await signIn(other);
    await expect.poll(() => projectsPageIn(other)).toEqual(CHINESE);
    await other.reload();
    expect(await projectsPageIn(other)).toEqual(CHINESE);

    // ---- Back to English there: remembered on reload and on the account.
    await other.getByTestId('language-switch').selectOption('en');
    await expect.poll(() => projectsPageIn(other)).toEqual(ENGLISH);
    await expect.poll(() => accountLocale(other)).toBe('en');
    await other.reload();
    expect(await projectsPageIn(other)).toEqual(ENGLISH);

    await first.close();
    await second.close();
  });
});
