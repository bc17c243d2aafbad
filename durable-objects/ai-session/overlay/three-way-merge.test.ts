/** The three-way merge of one staged file: clean line merges, conflicts with their regions, and the deletion rules. */
import { describe, expect, it } from 'vitest';
import { mergeFile, mergeLines } from './three-way-merge.ts';

const BASE = 'title\n\nalpha\nbeta\ngamma\n\ndelta\nepsilon\n';

describe('mergeLines', () => {
  it('keeps both sides when they changed different lines', () => {
    const ours = BASE.replace('alpha', 'ALPHA (draft)');
    const theirs = BASE.replace('epsilon', 'EPSILON (saved)');
    expect(mergeLines(BASE, ours, theirs)).toEqual({ clean: true, text: 'title\n\nALPHA (draft)\nbeta\ngamma\n\ndelta\nEPSILON (saved)\n' });
  });

  it('returns the region both sides changed, with the clean parts around it and the merged text with markers', () => {
    const ours = BASE.replace('beta', 'beta from the draft');
    const theirs = BASE.replace('beta', 'beta from the builder').replace('epsilon', 'EPSILON');
    const merge = mergeLines(BASE, ours, theirs);
    expect(merge).toEqual({
      clean: false,
      kind: 'lines',
      chunks: [
        { kind: 'clean', text: 'title\n\nalpha\n' },
        { kind: 'conflict', base: 'beta\n', ours: 'beta from the draft\n', theirs: 'beta from the builder\n' },
        { kind: 'clean', text: 'gamma\n\ndelta\nEPSILON\n' },
      ],
      merged: 'title\n\nalpha\n<<<<<<< draft\nbeta from the draft\n=======\nbeta from the builder\n>>>>>>> baseline\ngamma\n\ndelta\nEPSILON\n',
    });
  });

  it('merges the same change made on both sides without a conflict', () => {
    const same = BASE.replace('gamma', 'GAMMA');
    expect(mergeLines(BASE, same, same.replace('title', 'Title'))).toEqual({ clean: true, text: same.replace('title', 'Title') });
  });
});

describe('mergeFile: deletions and an unknown base', () => {
  it('lets a draft deletion stand when the baseline did not change the file, and calls it a conflict when it did', () => {
    expect(mergeFile(BASE, null, BASE)).toEqual({ clean: true, text: null });
    expect(mergeFile(BASE, null, null)).toEqual({ clean: true, text: null });
    const changed = mergeFile(BASE, null, `${BASE}more\n`);
    expect(changed).toMatchObject({ clean: false, kind: 'deleted-in-draft', chunks: [{ kind: 'conflict', base: BASE, ours: '', theirs: `${BASE}more\n` }] });
  });

  it('follows a baseline deletion of an untouched or added file, and calls a deleted changed file a conflict', () => {
    expect(mergeFile(BASE, BASE, null)).toEqual({ clean: true, text: null });
    expect(mergeFile(null, 'added by the draft\n', null)).toEqual({ clean: true, text: 'added by the draft\n' });
    expect(mergeFile(BASE, `${BASE}draft\n`, null)).toMatchObject({ clean: false, kind: 'deleted-in-baseline' });
  });

  it('without a known base, merges only identical sides and otherwise shows the whole file as one conflict', () => {
    expect(mergeFile(undefined, 'same\n', 'same\n')).toEqual({ clean: true, text: 'same\n' });
    expect(mergeFile(undefined, 'a\n', 'b\n')).toEqual({
      clean: false,
      kind: 'lines',
      chunks: [{ kind: 'conflict', base: null, ours: 'a\n', theirs: 'b\n' }],
      merged: '<<<<<<< draft\na\n=======\nb\n>>>>>>> baseline\n',
    });
  });
});
