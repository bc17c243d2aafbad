/**
 * The three-way merge of one staged file onto a new baseline: base (the baseline text the draft
 * was made against), ours (the draft) and theirs (the baseline now), line by line with node-diff3.
 *
 * Deletions are decided here, so every caller reads them the same way:
 * - the draft deletes a file: when the baseline did not change it (or deleted it too) the deletion
 *   stands; when the baseline changed it, that is a conflict ('deleted-in-draft') — dropping
 *   someone's save silently is what this command exists to prevent;
 * - the baseline deleted a file: a file the draft added (base absent) or left as it was follows the
 *   baseline; a file the draft changed is a conflict ('deleted-in-baseline');
 * - when the base text is not known (drafts staged before it was kept), only identical sides merge;
 *   anything else is one conflict over the whole file, with no base to show.
 */
import { diff3Merge } from 'node-diff3';
import type { ConflictKind, MergeChunk } from '../../../shared/api/ai-rebase.ts';

export type FileMerge =
  /** `text` null: the file ends up deleted. */
  | { clean: true; text: string | null }
  | { clean: false; kind: ConflictKind; chunks: MergeChunk[]; merged: string };

/** Lines with their line endings, so joining them gives the text back exactly. */
function linesOf(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

const withNewline = (text: string): string => (text === '' || text.endsWith('\n') ? text : `${text}\n`);

/** The merged text with each conflict between git-style markers, the draft first. */
export function withMarkers(chunks: readonly MergeChunk[]): string {
  return chunks
    .map((chunk) =>
      chunk.kind === 'clean'
        ? chunk.text
        : `<<<<<<< draft\n${withNewline(chunk.ours)}=======\n${withNewline(chunk.theirs)}>>>>>>> baseline\n`,
    )
    .join('');
}

function conflict(kind: ConflictKind, chunks: MergeChunk[]): FileMerge {
  return { clean: false, kind, chunks, merged: withMarkers(chunks) };
}

/** Both sides are text: diff3 by lines; identical changes on both sides are not conflicts. */
export function mergeLines(base: string, ours: string, theirs: string): FileMerge {
  const regions = diff3Merge(linesOf(ours), linesOf(base), linesOf(theirs), { excludeFalseConflicts: true });
  const chunks: MergeChunk[] = [];
  for (const region of regions) {
    if (region.ok) {
      const text = region.ok.join('');
      const last = chunks[chunks.length - 1];
      if (last?.kind === 'clean') last.text += text;
      else if (text !== '') chunks.push({ kind: 'clean', text });
    } else if (region.conflict) {
      chunks.push({ kind: 'conflict', base: region.conflict.o.join(''), ours: region.conflict.a.join(''), theirs: region.conflict.b.join('') });
    }
  }
  if (chunks.every((c) => c.kind === 'clean')) return { clean: true, text: chunks.map((c) => (c.kind === 'clean' ? c.text : '')).join('') };
  return conflict('lines', chunks);
}

/**
 * `base`: the text the draft was made against; null when the file did not exist then; undefined
 * when it is not known. `ours`/`theirs`: null when deleted on that side.
 */
export function mergeFile(base: string | null | undefined, ours: string | null, theirs: string | null): FileMerge {
  if (ours === theirs) return { clean: true, text: ours };
  const whole = (kind: ConflictKind): FileMerge =>
    conflict(kind, [{ kind: 'conflict', base: base ?? null, ours: ours ?? '', theirs: theirs ?? '' }]);
  if (base === undefined) return whole(ours === null ? 'deleted-in-draft' : theirs === null ? 'deleted-in-baseline' : 'lines');
  if (ours === null) return theirs === base ? { clean: true, text: null } : whole('deleted-in-draft');
  if (theirs === null) {
    if (base === null) return { clean: true, text: ours };
    return ours === base ? { clean: true, text: null } : whole('deleted-in-baseline');
  }
  return mergeLines(base ?? '', ours, theirs);
}
