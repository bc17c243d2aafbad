/**
 * An error body the API answered, as the app keeps it. The Worker words it in the language the
 * request was sent in (`arrivedIn`); its `message` and `hints` are read each time they are shown:
 * in that language they are the server's own words (the most precise), in another they are the
 * code's words in the language now shown (with the fields it carries, e.g. a 429's wait), once
 * those words have loaded (error-words.svelte.ts). A code the app does not know keeps the server's
 * words in every language. So a language switch re-words an error already on the page instead of
 * leaving it in the language it came in. Kept apart from api-errors.ts: every page's API client
 * (api.ts) imports this, and it carries no word tables.
 */
import { isErrorCode, type ErrorBody, type ErrorCode } from '../../shared/errors.ts';
import type { Locale } from '../../shared/i18n/locales.ts';
import { errorWordsIn } from './error-words.svelte.ts';
import { locale } from './i18n/i18n.svelte.ts';

export function serverError(raw: Record<string, unknown> & { code: string; message: string }, arrivedIn: Locale): ErrorBody {
  const known = isErrorCode(raw.code);
  const code: ErrorCode = known ? (raw.code as ErrorCode) : 'INTERNAL_ERROR';
  const sent = { message: raw.message, hints: Array.isArray(raw.hints) ? raw.hints.filter((h): h is string => typeof h === 'string') : undefined };
  const body = { ...raw, code } as ErrorBody;
  const words = () => (!known || locale() === arrivedIn ? sent : (errorWordsIn(body, locale()) ?? sent));
  Object.defineProperty(body, 'message', { enumerable: true, configurable: true, get: () => words().message });
  Object.defineProperty(body, 'hints', { enumerable: true, configurable: true, get: () => words().hints });
  return body;
}
