/**
 * A validation issue in the reader's language. English readers get the validator's own words
 * (the most precise, with every value); other readers get the catalogue's words for the issue's
 * code — said with the issue's values when it carries them all — and the code's own hint.
 */
import { isErrorCode } from '../../shared/errors.ts';
import { locale, t, wordsAdded } from './i18n/i18n.svelte.ts';
import type { MessageKey } from './i18n/catalogue.ts';

/** What every issue shape of the product has (package issues, import notes, a change's validation). */
export interface IssueLikeText {
  code: string;
  message: string;
  hint?: string | undefined;
  params?: Record<string, string | number> | undefined;
}

export interface IssueText {
  message: string;
  hint?: string;
}

const has = (table: object, code: string): boolean => Object.hasOwn(table, code);

// The issue words are loaded the first time a reader of another language meets an issue: English
// readers never need them, and the editor's first load stays small. Until they arrive the issue
// shows in the validator's English, and is worded again when they do (`wordsAdded`).
type IssueWords = typeof import('./i18n/issue-words.ts');
let words: IssueWords | null = null;
let loading: Promise<void> | null = null;

function issueWords(): IssueWords | null {
  void wordsAdded();
  loading ??= import('./i18n/issue-words.ts').then((module) => {
    words = module;
  });
  return words;
}

/** Resolves once the issue words are there (tests, and a page that wants them before it renders). */
export function issueWordsReady(): Promise<void> {
  issueWords();
  return loading!;
}

/** Every `{{name}}` of an English text has a value in `params`. */
function covers(text: string, params: Record<string, string | number>): boolean {
  return [...text.matchAll(/\{\{(\w+)\}\}/g)].every((m) => params[m[1]!] !== undefined);
}

export function issueText(issue: IssueLikeText): IssueText {
  const lang = locale();
  if (lang === 'en') return issue.hint ? { message: issue.message, hint: issue.hint } : { message: issue.message };
  const loaded = issueWords();
  if (!loaded) return issue.hint ? { message: issue.message, hint: issue.hint } : { message: issue.message };
  const { codes, detailed, hints } = loaded.issuesEn;
  if (has(codes, issue.code)) {
    const code = issue.code as keyof typeof codes;
    const full = issue.params && has(detailed, code) && covers(detailed[code as keyof typeof detailed], issue.params);
    const message = full ? t(`issues.detailed.${code}` as MessageKey, issue.params) : t(`issues.codes.${code}` as MessageKey);
    return has(hints, code) ? { message, hint: t(`issues.hints.${code}` as MessageKey) } : { message };
  }
  // An API error code used as an issue code (AI_*, STEP_*): the error table has both languages.
  if (isErrorCode(issue.code)) {
    const words = loaded.errorText(issue.code, lang);
    return words.hint ? { message: words.message, hint: words.hint } : { message: words.message };
  }
  return issue.hint ? { message: issue.message, hint: issue.hint } : { message: issue.message };
}
