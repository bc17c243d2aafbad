/**
 * The package validation issues' words (`issues.*`), kept out of the catalogue every page loads:
 * `../issue-text.ts`, which every issue list words through, imports this module for its side effect.
 */
import { addWords } from './i18n.svelte.ts';
import { issues as issuesEn } from './en/issues.ts';
import { issues as issuesZh } from './zh/issues.ts';

addWords('issues', { en: issuesEn, zh: issuesZh });
