/**
 * The history page's words — the change list, one change's diff and its revert (`history.*`), the
 * line diff (`diff.*`) — kept out of the catalogue every page loads: the modules that show them
 * import this one for its side effect.
 */
import { addWords } from './i18n.svelte.ts';
import { history as historyEn } from './en/history.ts';
import { history as historyZh } from './zh/history.ts';
import { diff as diffEn } from './en/assets.ts';
import { diff as diffZh } from './zh/assets.ts';

addWords('history', { en: historyEn, zh: historyZh });
addWords('diff', { en: diffEn, zh: diffZh });
