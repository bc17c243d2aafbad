import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, jsonNestsDeeper } from './json-depth.ts';

const nested = (levels: number, open = '[', close = ']') => open.repeat(levels) + close.repeat(levels);

describe('jsonNestsDeeper', () => {
  it('accepts nesting up to the limit and refuses one level more, for arrays and objects alike', () => {
    expect(jsonNestsDeeper(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonNestsDeeper(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    const objects = (levels: number) => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);
    expect(jsonNestsDeeper(objects(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonNestsDeeper(objects(MAX_JSON_DEPTH + 1))).toBe(true);
  });

  it('measures depth, not count: many siblings at one level pass', () => {
    expect(jsonNestsDeeper(`[${Array.from({ length: 10_000 }, () => '{"x":[1]}').join(',')}]`)).toBe(false);
  });

  it('skips brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ body: '['.repeat(1_000) + '\\"' + '{'.repeat(1_000), note: 'a "quoted" [word]' });
    expect(jsonNestsDeeper(text)).toBe(false);
    expect(JSON.parse(text).body).toHaveLength(2_002);
  });

  it('finds a deep value after a long shallow one, and takes a lower limit', () => {
    expect(jsonNestsDeeper(`{"a":"${'x'.repeat(100_000)}","b":${nested(200)}}`)).toBe(true);
    expect(jsonNestsDeeper('{"a":[[1]]}', 3)).toBe(false);
    expect(jsonNestsDeeper('{"a":[[[1]]]}', 3)).toBe(true);
  });
});
