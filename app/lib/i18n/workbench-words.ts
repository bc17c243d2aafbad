/**
 * The AI Workbench's words — its own area, the session object's details (risk reasons, tool
 * lines), the semantic diff and the diff view — kept out of the catalogue every page loads: the
 * pages that show them (the Workbench, the sessions list) import this module for its side effect.
 */
import { addWords } from './i18n.svelte.ts';
import { workbenchEn } from './en/workbench.ts';
import { workbenchZh } from './zh/workbench.ts';
import { workbenchDetails as detailsEn } from './en/workbench-details.ts';
import { workbenchDetails as detailsZh } from './zh/workbench-details.ts';
import { semanticDiff as semanticEn } from './en/semantic-diff.ts';
import { semanticDiff as semanticZh } from './zh/semantic-diff.ts';
import { diffView as diffEn } from './en/diff-view.ts';
import { diffView as diffZh } from './zh/diff-view.ts';

addWords('workbench', { en: workbenchEn, zh: workbenchZh });
addWords('workbenchDetails', { en: detailsEn, zh: detailsZh });
addWords('semanticDiff', { en: semanticEn, zh: semanticZh });
addWords('diffView', { en: diffEn, zh: diffZh });
