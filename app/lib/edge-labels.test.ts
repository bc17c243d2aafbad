import { describe, expect, it } from 'vitest';
import { labelSize, spreadLabels } from './edge-labels.ts';

describe('labelSize', () => {
  it('gives a Chinese label about twice the width of as many Latin letters', () => {
    expect(labelSize('通过审核').width).toBe(labelSize('abcdefgh').width);
    expect(labelSize('通过审核').width).toBeGreaterThan(labelSize('abcd').width);
  });

  it('moves a Chinese label off a neighbour its full width would cover', () => {
    // 60 px apart: clear if each character were a Latin letter's width, overlapping at full width.
    const box = (id: string, text: string, x: number) => ({ id, x, y: 100, ...labelSize(text) });
    const placed = spreadLabels([box('a', '需要补充材料', 100), box('b', '审核通过', 160)]);
    expect(placed.get('b')!.y).not.toBe(placed.get('a')!.y);
  });
});
