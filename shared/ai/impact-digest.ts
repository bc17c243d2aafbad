/**
 * The impact of a change (change-impact.ts) in a few numbers, flags and reasons: what the session
 * mirrors into D1 with each version, so the project's Sessions list shows files changed and risk
 * flags without waking the session object, and what the Workbench's one-line summary reads.
 */
import type { ChangeImpactView, RiskFlag } from './change-impact.ts';

export type ImpactFlag = RiskFlag['flag'];

/** The flags people read first: the order the list and the summary show them in. */
export const IMPACT_FLAG_ORDER: readonly ImpactFlag[] = ['broken-reference', 'cross-object', 'high-churn', 'deletes'];

/** At most this many reasons per flag and broken references are kept (the list shows a few, the panel all). */
const MAX_REASONS = 3;
const MAX_BROKEN = 10;

export interface ImpactDigest {
  files: number;
  added: number;
  modified: number;
  deleted: number;
  linesAdded: number;
  linesRemoved: number;
  /** Each raised flag with how many objects raised it and the first reasons. */
  flags: Array<{ flag: ImpactFlag; count: number; reasons: string[] }>;
  /** References the change makes to things that do not exist (asset paths). */
  brokenReferences: string[];
}

export function impactDigest(impact: ChangeImpactView): ImpactDigest {
  const flags = IMPACT_FLAG_ORDER.flatMap((flag) => {
    const raised = impact.risks.filter((r) => r.flag === flag);
    return raised.length === 0 ? [] : [{ flag, count: raised.length, reasons: raised.slice(0, MAX_REASONS).map((r) => r.message) }];
  });
  const { files, added, modified, deleted, linesAdded, linesRemoved } = impact.counts;
  return { files, added, modified, deleted, linesAdded, linesRemoved, flags, brokenReferences: impact.references.broken.slice(0, MAX_BROKEN) };
}

/** A stored digest read back leniently (older rows have none; a malformed one counts as none). */
export function readImpactDigest(value: unknown): ImpactDigest | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Partial<ImpactDigest>;
  if (typeof v.files !== 'number' || !Array.isArray(v.flags)) return null;
  const num = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) ? n : 0);
  return {
    files: v.files,
    added: num(v.added),
    modified: num(v.modified),
    deleted: num(v.deleted),
    linesAdded: num(v.linesAdded),
    linesRemoved: num(v.linesRemoved),
    flags: v.flags.filter((f) => typeof f === 'object' && f !== null && IMPACT_FLAG_ORDER.includes(f.flag)).map((f) => ({ flag: f.flag, count: num(f.count), reasons: Array.isArray(f.reasons) ? f.reasons.filter((r) => typeof r === 'string') : [] })),
    brokenReferences: Array.isArray(v.brokenReferences) ? v.brokenReferences.filter((r) => typeof r === 'string') : [],
  };
}
