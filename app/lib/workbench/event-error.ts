/**
 * An error a socket event carries (a failed turn or apply, the token budget, a review block) in
 * the reader's language. Events hold a stable code and the server's English words; English keeps
 * those (often more precise than the table's), Chinese reads the code's message and hint from
 * `shared/i18n/error-text.ts`, and a code the table does not know still comes with words.
 */
import { isErrorCode } from '../../../shared/errors.ts';
import { errorText } from '../../../shared/i18n/error-text.ts';
import { locale, t } from '../i18n/i18n.svelte.ts';
import '../i18n/workbench-words.ts';

export interface EventErrorText {
  message: string;
  hints: string[];
}

export function eventErrorText(code: string, message: string, hints: readonly string[] = []): EventErrorText {
  const lang = locale();
  if (isErrorCode(code)) {
    if (lang === 'en') return { message: message || errorText(code, lang).message, hints: [...hints] };
    const text = errorText(code, lang);
    return { message: text.message, hints: text.hint ? [text.hint] : [] };
  }
  // An unknown code: the server's words in English; otherwise words that say something failed, with the code.
  if (lang === 'en' && message) return { message, hints: [...hints] };
  return { message: t('workbench.errors.unknown', { code }), hints: [] };
}
