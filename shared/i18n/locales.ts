/**
 * The interface languages and how a request's language is chosen: the person's own choice, then
 * the browser's `Accept-Language`, then English. Everything the product says goes through a
 * catalogue keyed by these two codes; package content keeps whatever language it was written in.
 */
export const LOCALES = ['en', 'zh'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

/** The name of each language in itself, for the switch in the top bar. */
export const LOCALE_NAMES: Record<Locale, string> = { en: 'English', zh: '简体中文' };

/** The value for `<html lang>` and `Intl` formatters. */
export const LOCALE_TAGS: Record<Locale, string> = { en: 'en', zh: 'zh-CN' };

/** The cookie (and `localStorage` key) that carries a person's choice to the Worker and across reloads. */
export const LOCALE_COOKIE = 'lang';

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/**
 * A language tag (`zh-Hans-CN`, `en-GB`, `ZH`) → the locale it belongs to, or undefined when the
 * product does not speak it. Traditional Chinese tags (`zh-TW`, `zh-Hant`) still read Simplified
 * Chinese better than English, so every `zh` tag maps to `zh`.
 */
export function localeOfTag(tag: string): Locale | undefined {
  const primary = tag.trim().toLowerCase().split(/[-_]/)[0];
  return isLocale(primary) ? primary : undefined;
}

/**
 * The best locale for an `Accept-Language` header (RFC 9110 §12.5.4): entries by descending
 * q-value, ties in the order given, `q=0` meaning "not this one"; English when none is known.
 */
export function negotiateLocale(acceptLanguage: string | null | undefined): Locale {
  if (!acceptLanguage) return DEFAULT_LOCALE;
  const ranked = acceptLanguage
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.split(';');
      const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const q = qParam === undefined ? 1 : Number(qParam.slice(2));
      return { tag: tag.trim(), q: Number.isFinite(q) ? q : 0, index };
    })
    .filter((entry) => entry.tag !== '' && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const entry of ranked) {
    const locale = entry.tag === '*' ? DEFAULT_LOCALE : localeOfTag(entry.tag);
    if (locale) return locale;
  }
  return DEFAULT_LOCALE;
}

/** The person's choice when there is one, else the header's best match. */
export function chooseLocale(choice: unknown, acceptLanguage: string | null | undefined): Locale {
  return isLocale(choice) ? choice : negotiateLocale(acceptLanguage);
}
