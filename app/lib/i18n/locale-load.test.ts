// Another language's words are a chunk of their own, loaded on first use (i18n.svelte.ts).
import { afterEach, describe, expect, it, vi } from 'vitest';

describe('switching to a language not loaded yet', () => {
  afterEach(() => {
    vi.doUnmock('./zh.ts');
    vi.resetModules();
  });

  it('switches once its words are in, and a choice made while they load wins over it', async () => {
    vi.resetModules();
    const i18n = await import('./i18n.svelte.ts');
    const first = i18n.useLocale('zh');
    // Nothing changes until the words are in: no page shows two languages.
    expect(i18n.locale()).toBe('en');
    expect(await i18n.useLocale('en')).toBe(true);
    expect(await first).toBe(false);
    expect(i18n.locale()).toBe('en');
    expect(i18n.t('login.title')).toBe('Sign in');

    expect(await i18n.useLocale('zh')).toBe(true);
    expect(i18n.locale()).toBe('zh');
    expect(i18n.t('login.title')).toBe('登录');
  });

  it('stays in the language in use when the words cannot be loaded (offline), and tries again on the next switch', async () => {
    vi.resetModules();
    vi.doMock('./zh.ts', () => {
      throw new Error('Failed to fetch dynamically imported module');
    });
    const i18n = await import('./i18n.svelte.ts');
    expect(await i18n.useLocale('zh')).toBe(false);
    expect(i18n.locale()).toBe('en');
    expect(i18n.t('login.title')).toBe('Sign in');

    vi.doUnmock('./zh.ts');
    expect(await i18n.useLocale('zh')).toBe(true);
    expect(i18n.t('login.title')).toBe('登录');
  });
});
