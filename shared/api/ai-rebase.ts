/**
 * Moving a draft onto a new baseline (issue 15 item 5): the request bodies of "rebase" and of a
 * conflict's resolution, and what the session answers. Each staged file whose baseline moved is
 * merged three ways (the baseline it was staged on, the draft, the baseline now); clean merges are
 * written as one new version, conflicts come back region by region for a person to resolve.
 */
import * as z from 'zod';

/** POST …/sessions/:sid/rebase takes no fields; an empty object is accepted for clients that always send one. */
export const RebaseInput = z.strictObject({});

/**
 * POST …/sessions/:sid/rebase/resolve: the text a person settled on for one conflicted file
 * (`content: null` keeps the file deleted), against the baseline revision the conflict was shown
 * with — when the baseline moved again since, the resolution is refused rather than misplaced.
 * The size is checked in bytes by the session (the JSON body cap is larger).
 */
export const ResolveRebaseInput = z.strictObject({
  objectKey: z.string().min(1).max(1100),
  content: z.string().nullable(),
  baseRevision: z.number().int().min(0),
});
export type ResolveRebaseInput = z.infer<typeof ResolveRebaseInput>;

/** One stretch of a conflicted file: text both sides agree on, or a region each side changed. */
export type MergeChunk =
  | { kind: 'clean'; text: string }
  /** `base` is null when the text the draft was made against is not known (drafts staged before it was kept). */
  | { kind: 'conflict'; base: string | null; ours: string; theirs: string };

/**
 * Why a file could not merge by itself: both sides changed the same lines, the draft deletes a
 * file the baseline changed, or the baseline deleted a file the draft changed.
 */
export type ConflictKind = 'lines' | 'deleted-in-draft' | 'deleted-in-baseline';

export type RebaseFile =
  | { key: string; path?: string; outcome: 'merged'; baseRevision: number; currentRevision: number }
  | {
      key: string;
      path?: string;
      outcome: 'conflict';
      kind: ConflictKind;
      baseRevision: number;
      /** The revision a resolution must name (`ResolveRebaseInput.baseRevision`). */
      currentRevision: number;
      chunks: MergeChunk[];
      /** The clean parts merged, each conflict written between git-style markers (draft first). */
      merged: string;
      /** The draft's text (null: the draft deletes the file) and the baseline's now (null: deleted there). */
      ours: string | null;
      theirs: string | null;
    };

export interface RebaseResult {
  files: RebaseFile[];
  /** The version the clean merges made; null when nothing was written (all conflicts, or nothing changed). */
  changeSetId: string | null;
  version: number | null;
  contentHash: string;
}

export interface ResolveRebaseResult {
  key: string;
  changeSetId: string;
  version: number;
  contentHash: string;
  valid: boolean;
}
