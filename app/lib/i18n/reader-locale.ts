/**
 * Put a reader's language in use with everything it needs before text shows: its catalogue
 * (i18n.svelte.ts) and, for a language other than English, the validation issues' words (until
 * those are in, an issue shows the validator's English). The root layout's load and the language
 * switch both go through here. Resolves as `useLocale` does: true once the language is in use.
 */
import type { Locale } from '../../../shared/i18n/locales.ts';
import { useLocale } from './i18n.svelte.ts';

export async function useReaderLocale(next: Locale): Promise<boolean> {
  const issueWords =
    next === 'en'
      ? undefined
      : import('../issue-text.ts')
          .then((module) => module.issueWordsReady())
          // Offline: issues show the validator's words until they load on first use.
          .catch(() => undefined);
  const [switched] = await Promise.all([useLocale(next), issueWords]);
  return switched;
}
