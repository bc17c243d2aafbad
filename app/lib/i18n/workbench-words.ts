/**
 * The AI Workbench's words (`workbench.*`), kept out of the catalogue every page loads: the pages
 * that show them (the Workbench, the sessions list) import this module for its side effect.
 */
import { addWords } from './i18n.svelte.ts';
import { workbenchEn } from './en/workbench.ts';
import { workbenchZh } from './zh/workbench.ts';

addWords('workbench', { en: workbenchEn, zh: workbenchZh });
