/**
 * The impact of a change in words (shared/ai/impact-digest.ts): the one line above Apply and in
 * the Sessions list ("2 files (1 added, 1 modified), +14 −3 lines · cross-object, broken reference"),
 * each flag's label and reasons, and the warning about broken references.
 */
import type { ImpactDigest, ImpactFlag } from '../../../shared/ai/impact-digest.ts';

export const FLAG_LABELS: Readonly<Record<ImpactFlag, string>> = {
  'broken-reference': 'broken reference',
  'cross-object': 'cross-object',
  'high-churn': 'high churn',
  deletes: 'deletes',
};

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "2 files (1 added, 1 modified), +14 −3 lines". */
export function filesLine(d: ImpactDigest): string {
  const kinds = [d.added ? `${d.added} added` : '', d.modified ? `${d.modified} modified` : '', d.deleted ? `${d.deleted} deleted` : ''].filter(Boolean);
  return `${plural(d.files, 'file')}${kinds.length ? ` (${kinds.join(', ')})` : ''}, +${d.linesAdded} −${d.linesRemoved} lines`;
}

/** The flags in order, each once: "cross-object, high churn". Empty when none. */
export function flagsLine(d: ImpactDigest): string {
  return d.flags.map((f) => FLAG_LABELS[f.flag]).join(', ');
}

/** The one line: files and lines, then the flags (or "no risk flags"). */
export function impactSummary(d: ImpactDigest): string {
  const flags = flagsLine(d);
  return `${filesLine(d)} · ${flags || 'no risk flags'}`;
}

/** The warning above Apply when the change refers to something that does not exist; null when nothing is broken. */
export function brokenWarning(d: ImpactDigest): string | null {
  const broken = d.brokenReferences;
  if (broken.length === 0) return null;
  const shown = broken.slice(0, 3).join(', ');
  const more = broken.length > 3 ? ` and ${broken.length - 3} more` : '';
  return `${broken.length === 1 ? 'It refers to something that does not exist' : `It refers to ${broken.length} things that do not exist`}: ${shown}${more}. Applying keeps these references broken.`;
}
