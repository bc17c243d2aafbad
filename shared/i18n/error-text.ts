/**
 * An error code's words in a language: the message and the hint the API and the app show. The
 * code stays stable in every language; only the words change.
 */
import { ERROR_CODES, type ErrorCode } from '../errors.ts';
import { ERROR_HINTS_EN } from './error-text.en.ts';
import { ERROR_TEXT_ZH } from './error-text.zh.ts';
import type { Locale } from './locales.ts';

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
 * code. `details[]` name fields and package files and stay as they are.
 */
export function localiseErrorBody<T extends { code: ErrorCode; message: string }>(body: T, locale: Locale): T & { hints?: string[] } {
  if (locale === 'en') return body;
  const text = errorText(body.code, locale);
  return { ...body, message: text.message, hints: [text.hint] };
}
