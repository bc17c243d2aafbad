/**
 * A problem with an error code, in the reader's language. Checks that run in the browser
 * (asset paths, LLM profile rules) and socket events carry English words and a stable code:
 * English readers keep the precise words; other readers get the code's words from the table.
 */
import type { ErrorCode } from '../../shared/errors.ts';
import { errorText } from '../../shared/i18n/error-text.ts';
import { locale } from './i18n/i18n.svelte.ts';

export interface ProblemWords {
  message: string;
  hint: string;
}

export function problemWords(code: ErrorCode, message: string, hint = ''): ProblemWords {
  const current = locale();
  if (current === 'en') return { message, hint };
  return errorText(code, current);
}
