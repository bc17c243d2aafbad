import { describe, expect, it } from 'vitest';
import { FileFolds, OPEN_UP_TO } from './file-folds.svelte.ts';

describe('FileFolds', () => {
  it('opens every file of a small change and folds them past three', () => {
    let count = OPEN_UP_TO;
    const folds = new FileFolds(() => count);
    expect(folds.isOpen('step:a')).toBe(true);
    count = OPEN_UP_TO + 1;
    expect(folds.isOpen('step:a')).toBe(false);
  });

  it("keeps the reader's choice whatever the change grows or shrinks to", () => {
    let count = 10;
    const folds = new FileFolds(() => count);
    folds.toggled('step:opened', true);
    count = 2;
    folds.toggled('step:folded', false);
    count = 12;
    expect(folds.isOpen('step:opened')).toBe(true);
    count = 1;
    expect(folds.isOpen('step:folded')).toBe(false);
    // A file nobody touched still follows the count.
    expect(folds.isOpen('step:other')).toBe(true);
  });

  it("records no choice for a toggle the pane made itself, so that file keeps following the count", () => {
    let count = 2;
    const folds = new FileFolds(() => count);
    // The pane opened it because the change is small: the toggle event repeats the default.
    folds.toggled('step:a', true);
    count = 8;
    expect(folds.isOpen('step:a')).toBe(false);
  });

  it('opens a file the pane was asked to show (a graph node clicked, `n`/`p`)', () => {
    const folds = new FileFolds(() => 20);
    folds.open('step:b');
    expect(folds.isOpen('step:b')).toBe(true);
    expect(folds.isOpen('step:c')).toBe(false);
  });

  it('gives a row the same attachment on every render', () => {
    const folds = new FileFolds(() => 5);
    expect(folds.attach('step:a')).toBe(folds.attach('step:a'));
    expect(folds.attach('step:a')).not.toBe(folds.attach('step:b'));
  });
});
