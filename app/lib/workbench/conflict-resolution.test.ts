/** Composing a conflicted file's resolution from the choices per region. */
import { describe, expect, it } from 'vitest';
import type { MergeChunk } from '../../../shared/api/ai-rebase.ts';
import { choiceDeletes, composeResolution, hasMarkers } from './conflict-resolution.ts';

const chunks: MergeChunk[] = [
  { kind: 'clean', text: 'head\n' },
  { kind: 'conflict', base: 'b\n', ours: 'draft one\n', theirs: 'saved one\n' },
  { kind: 'clean', text: 'middle\n' },
  { kind: 'conflict', base: 'c\n', ours: 'draft two', theirs: 'saved two\n' },
];

describe('composeResolution', () => {
  it('takes the draft, the baseline or both per region, and keeps markers where nothing was chosen', () => {
    expect(composeResolution(chunks, ['ours', 'theirs'])).toBe('head\ndraft one\nmiddle\nsaved two\n');
    expect(composeResolution(chunks, ['both', 'both'])).toBe('head\ndraft one\nsaved one\nmiddle\ndraft two\nsaved two\n');
    const partial = composeResolution(chunks, ['theirs']);
    expect(partial).toBe('head\nsaved one\nmiddle\n<<<<<<< draft\ndraft two\n=======\nsaved two\n>>>>>>> baseline\n');
    expect(hasMarkers(partial)).toBe(true);
    expect(hasMarkers(composeResolution(chunks, ['ours', 'ours']))).toBe(false);
  });

  it('says when the chosen side of a whole-file conflict is a deletion', () => {
    const file = {
      key: 'step:wf/a', outcome: 'conflict' as const, kind: 'deleted-in-draft' as const, baseRevision: 1, currentRevision: 2,
      chunks: [{ kind: 'conflict' as const, base: 'x\n', ours: '', theirs: 'y\n' }], merged: '', ours: null, theirs: 'y\n',
    };
    expect(choiceDeletes(file, 'ours')).toBe(true);
    expect(choiceDeletes(file, 'theirs')).toBe(false);
  });
});
