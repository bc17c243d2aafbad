/**
 * A staged file's change as a unified diff (jsdiff `createTwoFilesPatch`), split into typed lines
 * so the changes pane can colour them while still rendering plain text in a `<pre>`: package
 * content is never HTML (app/README.md).
 */
import { createTwoFilesPatch } from 'diff';
import type { FileDiffView } from './types.ts';

export type PatchLineKind = 'header' | 'hunk' | 'add' | 'del' | 'ctx' | 'note';

export interface PatchLine {
  kind: PatchLineKind;
  text: string;
  /** The line's number in the staged text (added and context lines): where a comment anchors. */
  newLine?: number;
}

export interface UnifiedDiff {
  lines: PatchLine[];
  added: number;
  removed: number;
}

/** Lines before the first hunk are the file headers; inside hunks the first character says. */
function kindOf(line: string, inHunk: boolean): PatchLineKind {
  if (line.startsWith('@@')) return 'hunk';
  if (!inHunk) return 'header';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  if (line.startsWith('\\')) return 'note';
  return 'ctx';
}

export function unifiedDiff(file: FileDiffView, context = 3): UnifiedDiff {
  const name = file.path ?? file.key;
  const patch = createTwoFilesPatch(
    file.before === null ? '/dev/null' : `a/${name}`,
    file.after === null ? '/dev/null' : `b/${name}`,
    file.before ?? '',
    file.after ?? '',
    undefined,
    undefined,
    { context },
  );
  // jsdiff opens with a row of '=' (an `Index:` separator); the ---/+++ headers say enough.
  const raw = patch.split('\n').filter((line, i) => !(i === 0 && /^=+$/.test(line)));
  if (raw.at(-1) === '') raw.pop();
  let inHunk = false;
  let next = 0;
  const lines = raw.map((text): PatchLine => {
    const kind = kindOf(text, inHunk);
    if (kind === 'hunk') {
      inHunk = true;
      next = Number(/\+(\d+)/.exec(text)?.[1] ?? '1');
    }
    if (kind === 'add' || kind === 'ctx') return { kind, text, newLine: next++ };
    return { kind, text };
  });
  return {
    lines,
    added: lines.filter((l) => l.kind === 'add').length,
    removed: lines.filter((l) => l.kind === 'del').length,
  };
}
