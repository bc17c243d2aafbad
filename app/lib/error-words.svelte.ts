/**
 * The words of every error code in every language (shared/i18n/error-text.ts and its tables), for
 * an API error shown in another language than it came in. They are loaded the first time such an
 * error is read, not with the page: the sign-in page's first load stays small. Until they arrive
 * the error keeps the server's words; the read is reactive, so it re-words itself when they do.
 */
import type { ErrorCode } from '../../shared/errors.ts';
import type { Locale } from '../../shared/i18n/locales.ts';

type Words = typeof import('../../shared/i18n/error-text.ts');

let loaded = $state.raw<Words | null>(null);
let loading: Promise<void> | undefined;

/** Loads the words once (again after a failed try). */
export function loadErrorWords(): Promise<void> {
  loading ??= import('../../shared/i18n/error-text.ts').then(
    (words) => {
      loaded = words;
    },
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** An error body's words in `locale`, or null while they are still loading (the load is started). */
export function errorWordsIn(body: { code: ErrorCode }, locale: Locale): { message: string; hints: string[] } | null {
  if (loaded) return loaded.errorBodyWords(body, locale);
  // Offline: the error keeps the words it came with; the next read tries again.
  loadErrorWords().catch(() => undefined);
  return null;
}
