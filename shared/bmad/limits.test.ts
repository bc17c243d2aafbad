import { describe, expect, it } from 'vitest';
import { exceedsUtf8Bytes, utf8ByteLength } from './limits.ts';

describe('exceedsUtf8Bytes', () => {
  it('agrees with the exact UTF-8 length on both sides of the limit', () => {
    const samples = ['', 'abc', 'é'.repeat(10), '€'.repeat(10), '😀'.repeat(10), 'a€😀é'.repeat(7)];
    for (const text of samples) {
      const bytes = utf8ByteLength(text);
      expect(bytes).toBe(new TextEncoder().encode(text).byteLength);
      for (const limit of [0, bytes - 1, bytes, bytes + 1, text.length, text.length * 3]) {
        if (limit < 0) continue;
        expect(exceedsUtf8Bytes(text, limit), `${JSON.stringify(text)} / ${limit}`).toBe(bytes > limit);
      }
    }
  });
});
