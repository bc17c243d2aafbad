/**
 * The words of the graph canvas (its refused edits among them) and the history page's override notes (en/page-words.ts), added
 * by the modules that show them (imported for its side effect), not carried by every first load.
 */
import { addWords } from './i18n.svelte.ts';
import { pageWords as en } from './en/page-words.ts';
import { pageWords as zh } from './zh/page-words.ts';

addWords('pageWords', { en, zh });
