/**
 * An error code's words in a language: the message and the hint the API and the app show. The
 * code stays stable in every language; only the words change.
 */
import { ERROR_CODES, type ErrorCode } from '../errors.ts';
import { ERROR_HINTS_EN } from './error-text.en.ts';
import { ERROR_TEXT_ZH } from './error-text.zh.ts';
import type { Locale } from './locales.ts';
import { waitText } from './wait-text.ts';

/** RATE_LIMITED with its Retry-After, in each language (English from the Worker names what was tried). */
const RETRY_IN: Record<Locale, (wait: string) => string> = {
  en: (wait) => `Too many attempts. Try again in ${wait}.`,
  zh: (wait) => `尝试次数过多，请在 ${wait}后再试。`,
};

export interface ErrorText {
  message: string;
  hint: string;
}

export function errorText(code: ErrorCode, locale: Locale): ErrorText {
  if (locale === 'zh') return ERROR_TEXT_ZH[code];
  return { message: ERROR_CODES[code].message, hint: ERROR_HINTS_EN[code] };
}

/**
 * An error body in the reader's language. English keeps the words the code was raised with (they
 * are often more precise than the table's); Chinese uses the table's message and hint for the
 * code, except that a RATE_LIMITED body with `retryAfterSeconds` keeps saying how long to wait. `details[]` name fields and package files and stay as they are.
 */
export function localiseErrorBody<T extends { code: ErrorCode; message: string }>(body: T, locale: Locale): T & { hints?: string[] } {
  if (locale === 'en') return body;
  return { ...body, ...errorBodyWords(body, locale) };
}

/**
 * The words of an error body in a language, from its code and the fields it carries: the table's
 * message and hint, except that a RATE_LIMITED body with `retryAfterSeconds` says how long to wait.
 * What the app shows when the body arrived in another language than the one now shown.
 */
export function errorBodyWords(body: { code: ErrorCode }, locale: Locale): { message: string; hints: string[] } {
  const text = errorText(body.code, locale);
  const wait = (body as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  // A 429 that says how long to wait keeps saying it in the reader's language.
  if (body.code === 'RATE_LIMITED' && typeof wait === 'number' && wait > 0) {
    return { message: RETRY_IN[locale](waitText(wait, locale)), hints: [text.hint] };
  }
  return { message: text.message, hints: [text.hint] };
}
