import { describe, expect, it } from 'vitest';
import { isAscii } from './ascii.ts';

describe('isAscii', () => {
  it('answers what a scan for a character outside ASCII answers', () => {
    const alphabet = ['a', ' ', '\n', '\u0000', '\u007f', '\u0080', 'é', '中', '😀', '\ud800', '\udc00', '\uffff'];
    let seed = 3;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % 1_000_003;
    for (let round = 0; round < 5_000; round++) {
      const text = Array.from({ length: next() % 20 }, () => alphabet[next() % alphabet.length]).join('');
      expect(isAscii(text), JSON.stringify(text)).toBe(!/[^\x00-\x7f]/u.test(text));
    }
  });

  it('tells a long text by its last character, and an empty one as ASCII', () => {
    const long = 'x'.repeat(200_000);
    expect(isAscii(long)).toBe(true);
    expect(isAscii(`${long}é`)).toBe(false);
    expect(isAscii(`é${long}`)).toBe(false);
    expect(isAscii('')).toBe(true);
    // Past the kept buffer's size a text still gets its whole answer.
    const huge = 'y'.repeat(3 * 1024 * 1024);
    expect(isAscii(huge)).toBe(true);
    expect(isAscii(`${huge}中`)).toBe(false);
    // A shorter text after a longer one reuses the buffer without reading what the longer one left.
    expect(isAscii('ab')).toBe(true);
  });
});
