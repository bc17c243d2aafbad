/**
 * Anchors a comment thread to a line range of a staged file's Y.Text with Yjs relative positions,
 * so the range follows edits above and inside it (the AI's re-stages touch only the middle that
 * differs, overlay-doc.ts), and tells when the commented lines were rewritten (outdated, like
 * GitHub): the text between the two positions is no longer the text that was commented on.
 */
import * as Y from 'yjs';

export interface LineAnchor {
  /** Encoded relative position of the range's first character (sticks to it). */
  start: Uint8Array;
  /** Encoded relative position just after the range's last character (sticks to that character). */
  end: Uint8Array;
  /** The commented lines when the thread started. */
  quote: string;
}

export interface ResolvedAnchor {
  line: number;
  lineEnd: number;
  /** The commented lines were changed or removed since the thread started. */
  outdated: boolean;
}

/** The draft's lines, a final newline not counting as an extra empty line (as a diff counts them). */
export function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** Start and end offsets of lines `line`..`lineEnd` (1-based, inclusive), or null when they do not all exist. */
function rangeOf(text: string, line: number, lineEnd: number): { from: number; to: number } | null {
  const lines = linesOf(text);
  if (line < 1 || lineEnd < line || lineEnd > lines.length) return null;
  let from = 0;
  for (let i = 0; i < line - 1; i++) from += lines[i]!.length + 1;
  let to = from;
  for (let i = line - 1; i < lineEnd; i++) to += lines[i]!.length + (i < lineEnd - 1 ? 1 : 0);
  return { from, to };
}

export function anchorLines(text: Y.Text, line: number, lineEnd: number): LineAnchor | null {
  const content = text.toString();
  const range = rangeOf(content, line, lineEnd);
  if (!range) return null;
  return {
    start: Y.encodeRelativePosition(Y.createRelativePositionFromTypeIndex(text, range.from, 0)),
    end: Y.encodeRelativePosition(Y.createRelativePositionFromTypeIndex(text, range.to, -1)),
    quote: content.slice(range.from, range.to),
  };
}

function newlinesBefore(text: string, index: number): number {
  let count = 0;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) count++;
  return count;
}

/** Where the range is now in `text` (the file's current Y.Text), or null when the file's text is gone. */
export function resolveAnchor(doc: Y.Doc, text: Y.Text | undefined, anchor: LineAnchor): ResolvedAnchor | null {
  if (!text) return null;
  const start = Y.createAbsolutePositionFromRelativePosition(Y.decodeRelativePosition(anchor.start), doc);
  const end = Y.createAbsolutePositionFromRelativePosition(Y.decodeRelativePosition(anchor.end), doc);
  // A position in another text (the file was dropped and staged anew) does not count.
  if (!start || !end || start.type !== text || end.type !== text) return null;
  const content = text.toString();
  const from = Math.min(start.index, end.index);
  const to = Math.max(start.index, end.index);
  const line = newlinesBefore(content, from) + 1;
  const lineEnd = line + newlinesBefore(content.slice(from, to), to - from);
  return { line, lineEnd, outdated: content.slice(from, to) !== anchor.quote };
}
