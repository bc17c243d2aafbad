import { describe, expect, it } from 'vitest';
import { fileChangeHash, findHunk, hunkHash, hunksOf, lineCounts, revertHunks } from './hunks.ts';

const BEFORE = ['# Step', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'end', ''].join('\n');
// Two separate changes: line 2 rewritten, line 8 removed and two lines added at the end.
const AFTER = ['# Step', 'ONE', 'two', 'three', 'four', 'five', 'six', 'end', 'extra 1', 'extra 2', ''].join('\n');

describe('hunksOf', () => {
  it('splits a change into its separate hunks with baseline and draft line ranges', () => {
    const hunks = hunksOf(BEFORE, AFTER);
    expect(hunks.map((h) => [h.oldStart, h.oldLines, h.newStart, h.newLines])).toEqual([
      [2, 1, 2, 1],
      [8, 1, 8, 0],
      [10, 0, 9, 2],
    ]);
    expect(hunks[0]).toMatchObject({ index: 0, removed: 'one\n', added: 'ONE\n' });
    expect(hunks[2]).toMatchObject({ removed: '', added: 'extra 1\nextra 2\n' });
  });

  it('treats an added file as one hunk of added lines and a deleted file as one of removed lines', () => {
    expect(hunksOf(null, 'a\nb')).toMatchObject([{ oldLines: 0, newStart: 1, newLines: 2, added: 'a\nb' }]);
    expect(hunksOf('a\nb\n', null)).toMatchObject([{ oldStart: 1, oldLines: 2, newLines: 0, removed: 'a\nb\n' }]);
    expect(hunksOf('same\n', 'same\n')).toEqual([]);
  });

  it('counts added and removed lines for the file list', () => {
    expect(lineCounts(BEFORE, AFTER)).toEqual({ added: 3, removed: 2 });
    expect(lineCounts(null, 'x\ny\n')).toEqual({ added: 2, removed: 0 });
  });

  it('hashes content only, so a hunk keeps its hash when lines above it change', () => {
    const moved = `new first line\n${AFTER}`;
    const [, , last] = hunksOf(BEFORE, AFTER);
    const lastMoved = hunksOf(BEFORE, moved).at(-1)!;
    expect(lastMoved.hash).toBe(last!.hash);
    expect(lastMoved.newStart).toBe(last!.newStart + 1);
    expect(hunkHash('ab', 'c')).not.toBe(hunkHash('a', 'bc'));
  });
});

describe('revertHunks', () => {
  it('puts one hunk back to the baseline and leaves the others', () => {
    const first = hunksOf(BEFORE, AFTER)[0]!;
    const reverted = revertHunks(BEFORE, AFTER, (h) => h.hash === first.hash);
    expect(reverted).toBe(['# Step', 'one', 'two', 'three', 'four', 'five', 'six', 'end', 'extra 1', 'extra 2', ''].join('\n'));
    expect(hunksOf(BEFORE, reverted).map((h) => h.hash)).toEqual(hunksOf(BEFORE, AFTER).slice(1).map((h) => h.hash));
  });

  it('gives back the baseline byte for byte when every hunk is reverted, a missing final newline included', () => {
    expect(revertHunks(BEFORE, AFTER, () => true)).toBe(BEFORE);
    expect(revertHunks('a\nb', 'a\nc', () => true)).toBe('a\nb');
    expect(revertHunks(null, 'new file\n', () => true)).toBe('');
  });

  it('changes nothing when no hunk is chosen', () => {
    expect(revertHunks(BEFORE, AFTER, () => false)).toBe(AFTER);
  });
});

describe('findHunk', () => {
  it('finds the hunk by content, nearest where the client saw it, and nothing once its content changed', () => {
    const before = 'x\na\nx\na\n';
    const after = 'x\nb\nx\nb\n';
    const hunks = hunksOf(before, after);
    expect(hunks).toHaveLength(2);
    expect(hunks[0]!.hash).toBe(hunks[1]!.hash);
    expect(findHunk(hunks, { hash: hunks[1]!.hash, newStart: 4 })).toBe(hunks[1]);
    expect(findHunk(hunks, { hash: hunks[0]!.hash, newStart: 2 })).toBe(hunks[0]);
    const edited = hunksOf(before, 'x\nB\nx\nb\n');
    expect(findHunk(edited, { hash: hunks[0]!.hash, newStart: 2 })?.newStart).toBe(4);
    expect(findHunk(hunksOf(before, 'x\nB\nx\nB\n'), { hash: hunks[0]!.hash, newStart: 2 })).toBeUndefined();
  });
});

describe('fileChangeHash', () => {
  it('names the whole change of a file: an added, an emptied and a deleted file differ, as do two drafts', () => {
    const hashes = [fileChangeHash(null, 'a\n'), fileChangeHash('', 'a\n'), fileChangeHash('a\n', ''), fileChangeHash('a\n', null), fileChangeHash('a\n', 'b\n')];
    expect(new Set(hashes).size).toBe(hashes.length);
    expect(fileChangeHash('a\n', 'b\n')).toBe(fileChangeHash('a\n', 'b\n'));
  });
});
