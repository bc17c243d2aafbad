/**
 * The History page's words for reverting one change: the confirmation says what will happen
 * (only this change undone, and which later revisions of the object are kept), the explicit
 * restore names the later revisions whose edits it discards, and the notice after says what was done.
 */
import type { RevertResult } from '../../shared/api/index.ts';
import { t } from './i18n/i18n.svelte.ts';
import './i18n/history-words.ts';

/** "revision 4" or "revisions 4–6", from the later revisions of an object (oldest first). */
export function revisionSpan(revisions: readonly number[]): string {
  const first = revisions[0];
  const last = revisions[revisions.length - 1];
  if (first === undefined || last === undefined) return '';
  return first === last ? t('history.spanOne', { revision: first }) : t('history.spanMany', { from: first, to: last });
}

/** The question before "Revert this change". */
export function revertQuestion(objectKey: string, laterRevisions: readonly number[]): string {
  return laterRevisions.length === 0
    ? t('history.revertQuestion', { key: objectKey })
    : t('history.revertQuestionKeeps', { key: objectKey, span: revisionSpan(laterRevisions) });
}

/** The explicit restore's button, offered on a change later revisions edited (and after a refused revert). */
export function restoreLabel(laterRevisions: readonly number[]): string {
  return t('history.restoreLabel', { span: revisionSpan(laterRevisions) });
}

/** The restore's confirmation: what is lost from the object (not from history). */
export function restoreQuestion(objectKey: string, laterRevisions: readonly number[]): string {
  return t('history.restoreQuestion', { key: objectKey, span: revisionSpan(laterRevisions) });
}

/** The notice after a revert or a restore. */
export function revertedNotice(objectKey: string, result: RevertResult): string {
  if (result.mode === 'restore' && result.discarded.length > 0) {
    return t('history.restored', { key: objectKey, revision: result.revision, span: revisionSpan(result.discarded) });
  }
  if (result.kept.length > 0) return t('history.revertedKept', { key: objectKey, revision: result.revision, span: revisionSpan(result.kept) });
  return t('history.reverted', { key: objectKey, revision: result.revision });
}
