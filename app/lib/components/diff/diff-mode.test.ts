/** The first diff view for a reader who never chose one. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_MODE, defaultMode } from './diff-mode.svelte.ts';

describe('the default diff view', () => {
  it('is side by side, and inline on a narrow window', () => {
    expect(DEFAULT_MODE).toBe('split');
    expect(defaultMode(false)).toBe('split');
    expect(defaultMode(true)).toBe('inline');
  });
});
