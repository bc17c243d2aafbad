import { describe, expect, it } from 'vitest';
import { REDACTED } from './redact.ts';
import { StreamRedactor } from './stream-redactor.ts';

const KEY = 'sk-canary-Q7w2E9r4T6y1U3i8O5p0';
const bytes = new TextEncoder().encode(KEY);
const FORMS: Record<string, string> = {
  plain: KEY,
  spaced: [...KEY].join(' '),
  base64: btoa(String.fromCharCode(...bytes)),
  urlEncoded: [...bytes].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join(''),
  hex: [...bytes].map((b) => b.toString(16).padStart(2, '0')).join(''),
};

/** Streams `text` in pieces of `size` characters; returns what came out, piece by piece. */
function stream(text: string, size: number, secrets: string[] = [KEY]): string[] {
  const out: string[] = [];
  const redactor = new StreamRedactor(secrets, (piece) => out.push(piece));
  for (let at = 0; at < text.length; at += size) redactor.push(text.slice(at, at + size));
  redactor.flush();
  return out;
}

describe('StreamRedactor', () => {
  for (const [name, form] of Object.entries(FORMS)) {
    it.each([1, 2, 3, 7, 16])(`removes the key (${name}) split into pieces of %i`, (size) => {
      const pieces = stream(`Here it is: ${form}. Done.`, size);
      expect(pieces.join('')).toBe(`Here it is: ${REDACTED}. Done.`);
      // No piece, and no pair of neighbouring pieces, carries a start of the key's form.
      for (const piece of pieces) expect(piece.includes(form.slice(0, 8))).toBe(false);
    });
  }

  it('passes ordinary text through unchanged, in order, and releases it as it goes', () => {
    const text = 'The receipt check now rejects totals above the limit. '.repeat(20);
    const pieces = stream(text, 5);
    expect(pieces.join('')).toBe(text);
    // Released during the stream, not all at the end.
    expect(pieces.length).toBeGreaterThan(10);
  });

  it('passes everything through at once when there is no key', () => {
    expect(stream('abc def', 1, [])).toEqual(['a', 'b', 'c', ' ', 'd', 'e', 'f']);
  });

  it('keeps a megabyte of separators and near-misses bounded, and still finds the key', () => {
    const nearMiss = `${KEY.slice(0, -1)}${' '.repeat(40)}`;
    const filler = nearMiss.repeat(Math.ceil(1_000_000 / nearMiss.length));
    const pieces = stream(`${filler}${[...KEY].join('\u200b')}!`, 8);
    expect(pieces.join('')).toBe(`${filler}${REDACTED}!`);
    expect(pieces.length).toBeGreaterThan(filler.length / 100);
  });
});
