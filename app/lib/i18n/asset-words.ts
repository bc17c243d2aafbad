/**
 * The assets page's words — the asset editor (`assets.*`) and the page around it (`assetsPage.*`) —
 * kept out of the catalogue every page loads: the modules that show them import this one for its
 * side effect.
 */
import { addWords } from './i18n.svelte.ts';
import { assets as assetsEn, assetsPage as assetsPageEn } from './en/assets.ts';
import { assets as assetsZh, assetsPage as assetsPageZh } from './zh/assets.ts';

addWords('assets', { en: assetsEn, zh: assetsZh });
addWords('assetsPage', { en: assetsPageEn, zh: assetsPageZh });
