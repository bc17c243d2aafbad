/**
 * The versions timeline of an AI session, comparing two versions and restoring a checkpoint:
 * what `GET …/sessions/:sid/versions`, `GET …/versions/compare` and `POST …/versions/:n/restore`
 * take and answer (the session object builds them, the Workbench reads them).
 */
import * as z from 'zod';
import type { ChangedFile } from '../ai/overlay.ts';
import type { FileDiff, VersionSource, VersionStatus } from './ai-session-views.ts';

/** One version of the draft as the timeline shows it. */
export interface TimelineVersion {
  version: number;
  changeSetId: string;
  contentHash: string;
  source: VersionSource;
  status: VersionStatus;
  /** The person who made it (null for the AI and for system versions). */
  createdBy: { userId: string; name: string | null } | null;
  createdAt: string;
  files: ChangedFile[];
  /** The seq of its `change.staged` event (null for a version made before checkpoints existed). */
  seq: number | null;
  /** Whether its draft can be compared and restored (versions made before checkpoints existed cannot). */
  checkpoint: boolean;
  /** For a restore: the version restored. */
  restoredFrom: number | null;
}

export interface VersionsTimelineView {
  versions: TimelineVersion[];
}

/** The other side of a comparison: a version number, or the stored package (`baseline`). */
export type CompareSide = number | 'baseline';

/**
 * Per file that differs, its text in `from` (`before`) and in `to` (`after`); null where the file
 * does not exist on that side. A file a checkpoint does not stage reads as the stored package today.
 */
export interface CompareView {
  from: CompareSide;
  to: CompareSide;
  files: FileDiff[];
}

export interface RestoreResult {
  changeSetId: string;
  version: number;
  contentHash: string;
  restoredFrom: number;
}

const Side = z.union([z.literal('baseline'), z.coerce.number().int().min(1)]);

export const CompareQuery = z.object({ from: Side, to: Side });
