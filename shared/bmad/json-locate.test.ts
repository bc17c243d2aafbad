import { describe, expect, it } from 'vitest';
import { locateJsonError } from './json-locate.ts';

describe('locateJsonError', () => {
  it.each(['{}', '[]', '0', '-1.5e+3', '"a\\u00e9\\n"', ' {"a": [1, true, false, null, {"b": "c"}]} ', '[[[[]]]]'])(
    'finds no error in valid JSON %s',
    (text) => {
      expect(() => JSON.parse(text)).not.toThrow();
      expect(locateJsonError(text)).toBeNull();
    },
  );

  it.each([
    ['', 0, 'Unexpected end of JSON input'],
    ['{', 1, 'Unexpected end of JSON input'],
    ['[1,]', 3, 'Unexpected character "]"'],
    ['{"a":1,}', 7, 'Expected a double-quoted property name'],
    ["{'a':1}", 1, 'Expected a double-quoted property name'],
    ['{"a" 1}', 5, "Expected ':' after property name"],
    ['[1 2]', 3, "Expected ',' or ']'"],
    ['{"a":1 "b":2}', 7, "Expected ',' or '}'"],
    ['01', 1, 'Unexpected non-whitespace character after JSON'],
    ['{} x', 3, 'Unexpected non-whitespace character after JSON'],
    ['"a\\x"', 2, 'Bad escape in string'],
    ['"a\nb"', 2, 'Unescaped control character in string'],
    ['"abc', 4, 'Unterminated string'],
    ['tru', 0, 'Unexpected character "t"'],
  ])('locates the error in %j', (text, offset, reason) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(locateJsonError(text)).toEqual({ offset, reason });
  });

  it('handles deep nesting iteratively', () => {
    expect(locateJsonError('['.repeat(500000))).toEqual({ offset: 500000, reason: 'Unexpected end of JSON input' });
  });
});

describe('locateJsonError against JSON.parse', () => {
  it('agrees with JSON.parse on thousands of corrupted documents', () => {
    const base = JSON.stringify({ a: [1, -2.5e3, 'x\\"y', true, null], b: { c: {}, d: [] }, 'é': '\u00e9' }, null, 1);
    const alphabet = ['{', '}', '[', ']', ',', ':', '"', '\\', '1', '-', '.', 'e', 't', 'n', ' ', '\n', '\u0001', 'x'];
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 3000; round++) {
      let text = base;
      for (let edits = 1 + random(3); edits > 0; edits--) {
        const at = random(text.length + 1);
        const kind = random(3);
        const ch = alphabet[random(alphabet.length)]!;
        text = kind === 0 ? text.slice(0, at) + text.slice(at + 1) : kind === 1 ? text.slice(0, at) + ch + text.slice(at) : text.slice(0, at) + ch + text.slice(at + 1);
      }
      let parses = true;
      try {
        JSON.parse(text);
      } catch {
        parses = false;
      }
      expect(locateJsonError(text) === null, text).toBe(parses);
    }
  });
});
