/**
 * The language switch in the top bar is remembered: a switch to 简体中文 shows at once, survives a
 * reload, and is saved on the account, so signing in on another browser (whose language is English
 * and which has never seen the choice) opens in Chinese too; switching back there sticks as well.
 * An error the server answered, on screen at the switch, is re-worded in the new language.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { en } from '../../app/lib/i18n/en.ts';
import { zh } from '../../app/lib/i18n/zh.ts';
import { ERROR_CODES } from '../../shared/errors.ts';
import { errorText } from '../../shared/i18n/error-text.ts';
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

  it('re-words a server error already on screen when the language is switched, and back', { timeout: 120_000 }, async () => {
    const base = suite.product.url;
    const user = newUser('Reworder');
    await registerViaApi(suite.product, user);
    const context = await suite.browser.newContext({ baseURL: base, locale: 'en-US' });
    const login = await context.request.post(`${base}/api/auth/login`, { data: { email: user.email, password: user.password }, headers: { origin: base } });
    expect(login.status()).toBe(200);
    const created = await context.request.post(`${base}/api/projects`, { data: { name: `Reword ${user.name}` }, headers: { origin: base } });
    expect(created.status()).toBe(201);
    const projectId = ((await created.json()) as { data: { project: { id: string } } }).data.project.id;

    // ---- In English: inviting an email a member already uses (their own) is refused with the server's own words.
    const page = await context.newPage();
    await page.goto(`/projects/${projectId}/members`);
    await page.locator('#member-email').fill(user.email);
    await page.getByTestId('add-member-submit').click();
    const error = page.getByTestId('add-member-error');
    await error.waitFor();
    expect(await error.getAttribute('data-code')).toBe('MEMBER_EXISTS');
    const english = (await error.textContent()) ?? '';
    expect(english).toContain(ERROR_CODES.MEMBER_EXISTS.message);
    expect(english).toContain('A member of the project already uses this email: change their role in the members list instead.');

    // ---- Switched to Chinese with the error on screen: it reads in Chinese, from its code.
    await page.getByTestId('language-switch').selectOption('zh');
    await page.locator('html[lang^="zh"]').waitFor({ state: 'attached' });
    await expect.poll(async () => (await error.textContent()) ?? '').toContain(errorText('MEMBER_EXISTS', 'zh').message);
    const chinese = (await error.textContent()) ?? '';
    expect(chinese).toContain(errorText('MEMBER_EXISTS', 'zh').hint);
    expect(chinese).not.toContain(ERROR_CODES.MEMBER_EXISTS.message);

    // ---- And back: the server's English words again.
    await page.getByTestId('language-switch').selectOption('en');
    await page.locator('html[lang="en"]').waitFor({ state: 'attached' });
    await expect.poll(async () => (await error.textContent()) ?? '').toContain('A member of the project already uses this email: change their role in the members list instead.');
    expect((await error.textContent()) ?? '').not.toContain(errorText('MEMBER_EXISTS', 'zh').message);

    await context.close();
  });
});
