/**
 * The impact of a change in words (shared/ai/impact-digest.ts): the one line above Apply and in
 * the Sessions list ("2 files (1 added, 1 modified), +14 −3 lines · cross-object, broken reference"),
 * each flag's label and reasons, and the warning about broken references.
 */
import type { ImpactDigest, ImpactFlag } from '../../../shared/ai/impact-digest.ts';
import { t } from '../i18n/i18n.svelte.ts';
import '../i18n/workbench-words.ts';

/** Each flag's words, read when shown (getters), so they follow a switch of the interface language. */
export const FLAG_LABELS: Readonly<Record<ImpactFlag, string>> = {
  get 'broken-reference'() {
    return t('workbench.impact.flags.brokenReference');
  },
  get 'cross-object'() {
    return t('workbench.impact.flags.crossObject');
  },
  get 'high-churn'() {
    return t('workbench.impact.flags.highChurn');
  },
  get deletes() {
    return t('workbench.impact.flags.deletes');
  },
};

const list = (items: readonly string[]) => items.join(t('workbench.listSeparator'));

/** "2 files (1 added, 1 modified), +14 −3 lines". */
export function filesLine(d: ImpactDigest): string {
  const kinds = [
    d.added ? t('workbench.impact.added', { count: d.added }) : '',
    d.modified ? t('workbench.impact.modified', { count: d.modified }) : '',
    d.deleted ? t('workbench.impact.deleted', { count: d.deleted }) : '',
  ].filter(Boolean);
  return t('workbench.impact.filesLine', {
    files: t('workbench.impact.files', { count: d.files }),
    kinds: kinds.length ? t('workbench.impact.kindList', { list: list(kinds) }) : '',
    added: d.linesAdded,
    removed: d.linesRemoved,
  });
}

/** The flags in order, each once: "cross-object, high churn". Empty when none. */
export function flagsLine(d: ImpactDigest): string {
  return list(d.flags.map((f) => FLAG_LABELS[f.flag]));
}

/** The one line: files and lines, then the flags (or "no risk flags"). */
export function impactSummary(d: ImpactDigest): string {
  return t('workbench.impact.summary', { files: filesLine(d), flags: flagsLine(d) || t('workbench.impact.noFlags') });
}

/** The warning above Apply when the change refers to something that does not exist; null when nothing is broken. */
export function brokenWarning(d: ImpactDigest): string | null {
  const broken = d.brokenReferences;
  if (broken.length === 0) return null;
  const more = broken.length > 3 ? t('workbench.impact.more', { count: broken.length - 3 }) : '';
  return t('workbench.impact.broken', { count: broken.length, list: list(broken.slice(0, 3)), more });
}
