import { describe, expect, it } from 'vitest';
import { FileFolds, OPEN_UP_TO } from './file-folds.svelte.ts';

describe('FileFolds', () => {
  it('opens every file of a small change and folds them past three', () => {
    expect(new FileFolds(() => OPEN_UP_TO).isOpen('step:a')).toBe(true);
    expect(new FileFolds(() => OPEN_UP_TO + 1).isOpen('step:a')).toBe(false);
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
    // A file first shown now takes the default for the count now.
    expect(folds.isOpen('step:other')).toBe(true);
  });

  it('keeps the state a file was first shown in when a new version crosses three files either way', () => {
    let count = 5;
    const folds = new FileFolds(() => count);
    expect(folds.isOpen('step:folded')).toBe(false);
    count = 2;
    // Still folded, as the reader last saw it; a file new to this version takes the default now.
    expect(folds.isOpen('step:folded')).toBe(false);
    expect(folds.isOpen('step:new')).toBe(true);
    // The pane opened it because the change was small: the toggle event repeats that, and it stays open.
    folds.toggled('step:new', true);
    count = 8;
    expect(folds.isOpen('step:new')).toBe(true);
  });

  it('forgets the files that left the change, so one that comes back starts afresh', () => {
    let count = 2;
    const folds = new FileFolds(() => count);
    folds.toggled('step:a', false);
    expect(folds.isOpen('step:b')).toBe(true);
    folds.keepOnly(['step:c']);
    count = 6;
    expect(folds.isOpen('step:a')).toBe(false);
    expect(folds.isOpen('step:b')).toBe(false);
    count = 1;
    folds.keepOnly([]);
    expect(folds.isOpen('step:a')).toBe(true);
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
