/**
 * The language an answer is written in: the person's choice (the `lang` cookie the app sets, else
 * the one stored on their account), then `Accept-Language`, then English. Error codes never change
 * with it; only their words do.
 */
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { chooseLocale, isLocale, LOCALE_COOKIE, type Locale } from '../../shared/i18n/locales.ts';

export function requestLocale(c: Context): Locale {
  const cookie = getCookie(c, LOCALE_COOKIE);
  if (isLocale(cookie)) return cookie;
  const user = c.get('user') as { locale?: unknown } | undefined;
  return chooseLocale(user?.locale, c.req.header('Accept-Language'));
}
