/**
 * The package validation issues' words (`issues.*`), kept out of the catalogue every page loads:
 * `../issue-text.ts`, which every issue list words through, imports this module for its side effect.
 */
import { addWords } from './i18n.svelte.ts';
import { issues as issuesEn } from './en/issues.ts';
import { issues as issuesZh } from './zh/issues.ts';

addWords('issues', { en: issuesEn, zh: issuesZh });

/** The English tables: which codes have words, and which of those take the issue's values. */
export { issuesEn };
/** An API error code used as an issue code is worded from the error table (both languages). */
export { errorText } from '../../../shared/i18n/error-text.ts';
