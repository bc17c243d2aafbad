import { describe, expect, it } from 'vitest';
import { windowText } from './window.ts';

describe('windowText', () => {
  it('returns short texts whole and never splits a surrogate pair', () => {
    expect(windowText('short')).toEqual({ content: 'short', totalChars: 5, offset: 0, truncated: false });
    const text = `${'a'.repeat(9)}😀${'b'.repeat(5)}`;
    const window = windowText(text, 0, 10);
    expect(window).toMatchObject({ content: 'a'.repeat(9), nextOffset: 9, truncated: true });
    expect(windowText(text, window.nextOffset, 10).content).toBe(`😀${'b'.repeat(5)}`);
    expect(windowText('abc', 10)).toEqual({ content: '', totalChars: 3, offset: 3, truncated: true });
  });
});
