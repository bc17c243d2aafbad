/**
 * A wait in words, for "Try again in …" (the Retry-After of a 429): whole seconds under a minute
 * and a half, whole minutes (rounded up) after, with the language's plural form ("1 second",
 * "2 seconds"; 中文 has one form: "1 秒", "30 秒").
 */
import type { Locale } from './locales.ts';

const UNITS = {
  en: { second: { one: 'second', other: 'seconds' }, minute: { one: 'minute', other: 'minutes' } },
  zh: { second: { one: '秒', other: '秒' }, minute: { one: '分钟', other: '分钟' } },
} as const satisfies Record<Locale, Record<'second' | 'minute', { one: string; other: string }>>;

const plurals = new Map<Locale, Intl.PluralRules>();

function pluralForm(locale: Locale, count: number): 'one' | 'other' {
  let rules = plurals.get(locale);
  if (!rules) plurals.set(locale, (rules = new Intl.PluralRules(locale)));
  return rules.select(count) === 'one' ? 'one' : 'other';
}

export function waitText(seconds: number, locale: Locale): string {
  const whole = Math.max(1, Math.ceil(seconds));
  const [count, unit] = whole < 90 ? [whole, 'second' as const] : [Math.ceil(whole / 60), 'minute' as const];
  return `${count} ${UNITS[locale][unit][pluralForm(locale, count)]}`;
}
