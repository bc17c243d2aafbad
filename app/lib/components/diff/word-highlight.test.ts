/** The word ranges the side-by-side diff highlights: one CJK character, not its clause. */
import { describe, expect, it } from 'vitest';
import { changedWordRanges } from './word-highlight.ts';

describe('changedWordRanges', () => {
  const before = '背景、目标用户、使用场景。';
  const after = '背景、目标客户、使用场景。';

  it('marks exactly the one changed Han character on each side, at the chunk offset', () => {
    const at = 40;
    const a = changedWordRanges('a', before, after, at);
    const b = changedWordRanges('b', before, after, at);
    expect(a.map(([f, t]) => before.slice(f - at, t - at))).toEqual(['用']);
    expect(b.map(([f, t]) => after.slice(f - at, t - at))).toEqual(['客']);
    expect(a).toEqual([[at + before.indexOf('用'), at + before.indexOf('用') + 1]]);
  });

  it('keeps Latin words whole and leaves a pure insertion to the side that has it', () => {
    const a = 'Capture the request';
    const b = 'Capture the vendor request';
    expect(changedWordRanges('a', a, b, 0)).toEqual([]);
    expect(changedWordRanges('b', a, b, 0).map(([f, t]) => b.slice(f, t))).toEqual(['vendor ']);
  });
});
