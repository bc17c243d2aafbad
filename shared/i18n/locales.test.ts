import { describe, expect, it } from 'vitest';
import { chooseLocale, negotiateLocale } from './locales.ts';

describe('negotiateLocale', () => {
  it.each([
    ['zh-CN,zh;q=0.9,en;q=0.8', 'zh'],
    ['en-GB,en;q=0.9,zh;q=0.8', 'en'],
    ['fr-FR,fr;q=0.9,zh-TW;q=0.5,en;q=0.3', 'zh'],
    ['fr-FR,de;q=0.9', 'en'],
    ['zh;q=0, en', 'en'],
    ['de, *;q=0.1', 'en'],
    ['ZH-hans-cn', 'zh'],
    ['', 'en'],
    [';;;,q=abc', 'en'],
  ])('%s → %s', (header, expected) => {
    expect(negotiateLocale(header)).toBe(expected);
  });

  it('prefers a higher q-value over an earlier position', () => {
    expect(negotiateLocale('en;q=0.4, zh;q=0.8')).toBe('zh');
  });
});

describe('chooseLocale', () => {
  it('takes the person’s choice over the header, and ignores a choice the product does not speak', () => {
    expect(chooseLocale('zh', 'en')).toBe('zh');
    expect(chooseLocale('fr', 'zh-CN')).toBe('zh');
    expect(chooseLocale(null, undefined)).toBe('en');
  });
});
