/**
 * A staged file's change as hunks, and the reversal of chosen hunks back to the baseline: the
 * diff view's keep/undo per hunk (the browser) and the session's undo command (the Durable Object)
 * both cut the same hunks from the same two texts, so a hunk the reviewer saw is named by its
 * content hash and found again on the server.
 *
 * Built on jsdiff's `diffLines` rather than a parsed unified patch: the parts carry their exact
 * text (newlines included), so a reversal is byte-exact, a missing final newline included.
 */
import { diffLines } from 'diff';

export interface Hunk {
  /** 0-based position among the file's hunks. */
  index: number;
  /** First baseline line the hunk replaces (1-based); for a pure insertion, the line it goes before. */
  oldStart: number;
  oldLines: number;
  /** First draft line of the hunk (1-based); for a pure deletion, the line the removal sits before. */
  newStart: number;
  newLines: number;
  /** The baseline text the hunk replaces ('' for an insertion). */
  removed: string;
  /** The draft text it puts there ('' for a deletion). */
  added: string;
  /**
   * A hash of `removed` and `added` only, never of the positions: it survives edits elsewhere in
   * the file, and names the hunk in keep marks and undo requests.
   */
  hash: string;
}

/** A run of unchanged text, or a hunk: the file is exactly the concatenation of its pieces. */
type Piece = { kind: 'same'; text: string } | { kind: 'hunk'; hunk: Hunk };

function lineCount(text: string): number {
  if (text === '') return 0;
  const breaks = text.split('\n').length - 1;
  return text.endsWith('\n') ? breaks : breaks + 1;
}

/**
 * cyrb53 (a public-domain 53-bit string hash): synchronous, so the diff view can name hunks while
 * it renders. It identifies content, it protects nothing; the server compares the texts as well.
 */
function cyrb53(text: string, seed = 0): string {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, '0');
}

export function hunkHash(removed: string, added: string): string {
  // The lengths go first, so "ab"+"c" and "a"+"bc" differ.
  return cyrb53(`${removed.length}:${added.length}:${removed}${added}`);
}

/** The whole change of a file ('A'/'M'/'D' and both texts): names a file for whole-file undo and keep. */
export function fileChangeHash(before: string | null, after: string | null): string {
  const side = (text: string | null) => (text === null ? 'null' : `${text.length}:${text}`);
  return cyrb53(`${side(before)}|${side(after)}`, 1);
}

function pieces(before: string, after: string): Piece[] {
  const out: Piece[] = [];
  let oldLine = 1;
  let newLine = 1;
  let removed = '';
  let added = '';
  let open = false;
  const close = () => {
    if (!open) return;
    const oldLines = lineCount(removed);
    const newLines = lineCount(added);
    const hunkCount = out.filter((p) => p.kind === 'hunk').length;
    out.push({
      kind: 'hunk',
      hunk: { index: hunkCount, oldStart: oldLine, oldLines, newStart: newLine, newLines, removed, added, hash: hunkHash(removed, added) },
    });
    oldLine += oldLines;
    newLine += newLines;
    removed = '';
    added = '';
    open = false;
  };
  for (const part of diffLines(before, after)) {
    if (part.removed) {
      removed += part.value;
      open = true;
    } else if (part.added) {
      added += part.value;
      open = true;
    } else {
      close();
      out.push({ kind: 'same', text: part.value });
      const lines = lineCount(part.value);
      oldLine += lines;
      newLine += lines;
    }
  }
  close();
  return out;
}

/** The hunks that turn `before` (null: the file is new) into `after` (null: the file is deleted). */
export function hunksOf(before: string | null, after: string | null): Hunk[] {
  return pieces(before ?? '', after ?? '').flatMap((p) => (p.kind === 'hunk' ? [p.hunk] : []));
}

/** +/− line counts of a change, for the file list. */
export function lineCounts(before: string | null, after: string | null): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const hunk of hunksOf(before, after)) {
    added += hunk.newLines;
    removed += hunk.oldLines;
  }
  return { added, removed };
}

/** The draft with the chosen hunks put back to the baseline's text; every other hunk stays. `revert` sees fresh hunk objects: compare by index or hash. */
export function revertHunks(before: string | null, after: string | null, revert: (hunk: Hunk) => boolean): string {
  return pieces(before ?? '', after ?? '')
    .map((p) => (p.kind === 'same' ? p.text : revert(p.hunk) ? p.hunk.removed : p.hunk.added))
    .join('');
}

/** What a client names when it asks to undo or keep one hunk: where it saw it, and its content hash. */
export interface HunkRef {
  hash: string;
  newStart: number;
}

/**
 * The hunk the client meant, among the hunks as they are now: the same content (hash), the one
 * nearest where the client saw it when the same change appears twice. Undefined when the content
 * changed meanwhile.
 */
export function findHunk(hunks: readonly Hunk[], ref: HunkRef): Hunk | undefined {
  let best: Hunk | undefined;
  for (const hunk of hunks) {
    if (hunk.hash !== ref.hash) continue;
    if (!best || Math.abs(hunk.newStart - ref.newStart) < Math.abs(best.newStart - ref.newStart)) best = hunk;
  }
  return best;
}
