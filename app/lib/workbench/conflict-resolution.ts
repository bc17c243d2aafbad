/**
 * A conflicted file's resolution as the resolver builds it: each conflict region takes the draft,
 * the baseline or both (draft first), and an unchosen region keeps its git-style markers, so the
 * editable result never silently drops either side.
 */
import type { MergeChunk, RebaseFile } from '../../../shared/api/ai-rebase.ts';

export type RegionChoice = 'ours' | 'theirs' | 'both';

type Conflicted = Extract<RebaseFile, { outcome: 'conflict' }>;

const withNewline = (text: string): string => (text === '' || text.endsWith('\n') ? text : `${text}\n`);

function regionText(chunk: Extract<MergeChunk, { kind: 'conflict' }>, choice: RegionChoice | undefined): string {
  if (choice === 'ours') return chunk.ours;
  if (choice === 'theirs') return chunk.theirs;
  if (choice === 'both') return withNewline(chunk.ours) + chunk.theirs;
  return `<<<<<<< draft\n${withNewline(chunk.ours)}=======\n${withNewline(chunk.theirs)}>>>>>>> baseline\n`;
}

/** The file's text with the choices made so far (choices by conflict index, in order). */
export function composeResolution(chunks: readonly MergeChunk[], choices: ReadonlyArray<RegionChoice | undefined>): string {
  let index = 0;
  return chunks.map((chunk) => (chunk.kind === 'clean' ? chunk.text : regionText(chunk, choices[index++]))).join('');
}

/** The conflict regions of a file, in order. */
export function conflictRegions(file: Conflicted): Array<Extract<MergeChunk, { kind: 'conflict' }>> {
  return file.chunks.filter((c): c is Extract<MergeChunk, { kind: 'conflict' }> => c.kind === 'conflict');
}

/**
 * Whether the side a whole-file choice takes is a deletion: the draft deleting a file the
 * baseline changed, or the baseline having deleted a file the draft changed.
 */
export function choiceDeletes(file: Conflicted, choice: RegionChoice | undefined): boolean {
  if (choice === 'ours') return file.ours === null;
  if (choice === 'theirs') return file.theirs === null;
  return false;
}

/** True while the text still holds a conflict marker line. */
export function hasMarkers(text: string): boolean {
  return /^(<<<<<<< draft|=======|>>>>>>> baseline)$/m.test(text);
}
