/**
 * The words of importing and exporting a package — the upload form, the preview of what it becomes,
 * the download (`importing.*`) — kept out of the catalogue every page loads: the modules that show
 * them import this one for its side effect.
 */
import { addWords } from './i18n.svelte.ts';
import { importing as en } from './en/importing.ts';
import { importing as zh } from './zh/importing.ts';

addWords('importing', { en, zh });
