/**
 * Contracts of keep and undo per file and per hunk (issue 16): the request bodies of
 * /api/projects/:projectId/ai/sessions/:sessionId/{undo,undo/:undoId/reapply,keep-marks} and what
 * they answer. A hunk is named by its content hash (shared/ai/hunks.ts) and where the client saw it.
 */
import * as z from 'zod';

const Key = z.string().min(1).max(1100);
const Hash = z.string().min(1).max(64);

export const HunkRefInput = z.strictObject({
  hash: Hash,
  /** The hunk's first draft line as the client saw it (picks between two hunks of equal content). */
  newStart: z.number().int().min(0).max(10_000_000),
});

/**
 * Undo one file (no `hunk`) or one hunk of it. `fileHash` is `fileChangeHash` of the change the
 * client saw: a whole-file undo is refused when the file changed since.
 */
export const UndoInput = z.strictObject({
  objectKey: Key,
  /** The version the client saw (recorded with the undo; the content check is by hash). */
  version: z.number().int().min(1).nullable(),
  hunk: HunkRefInput.optional(),
  fileHash: Hash.optional(),
});
export type UndoInput = z.infer<typeof UndoInput>;

export interface UndoResult {
  undoId: string;
  objectKey: string;
  /** The new version the undo made (with no files when the draft is now empty). */
  version: number;
  changeSetId: string;
  /** True when the file is no longer part of the draft (an added file undone, or every hunk). */
  removed: boolean;
}

/** Keep ("reviewed by me") or clear that mark, on a file (`hash` = its fileChangeHash) or one hunk (`hash` = the hunk's). */
export const KeepInput = z.strictObject({
  objectKey: Key,
  hash: Hash,
  scope: z.enum(['file', 'hunk']),
  kept: z.boolean(),
});
export type KeepInput = z.infer<typeof KeepInput>;

export interface KeepMark {
  objectKey: string;
  hash: string;
  scope: 'file' | 'hunk';
  /** The version current when the mark was made. */
  version: number | null;
  createdAt: string;
}
