/**
 * Where edge labels go on the canvas so that none overlaps another: each label starts at its
 * edge's midpoint and, when its box would cover a label already placed, slides along y (down,
 * then up, alternating) until it is clear of them and of the node cards. Pure; the graph component measures nothing.
 */

export interface LabelBox {
  id: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

const GAP = 4;

/** East Asian wide characters (CJK, kana, Hangul, full-width forms) take about twice a Latin letter's width. */
const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u;

/** A label's box from its text: about 6.5 px a character (13 px a wide one) at the canvas's label size, plus padding. */
export function labelSize(text: string): { width: number; height: number } {
  let units = 0;
  for (const char of text) units += WIDE.test(char) ? 2 : 1;
  return { width: Math.ceil(units * 6.5) + 14, height: 18 };
}

function overlaps(a: LabelBox, b: LabelBox): boolean {
  return Math.abs(a.x - b.x) * 2 < a.width + b.width + GAP && Math.abs(a.y - b.y) * 2 < a.height + b.height + GAP;
}

/**
 * Label centres (x, y are centres) moved apart; order of `labels` decides who keeps its place.
 * `obstacles` (boxes the labels must also clear, such as the node cards) never move.
 */
export function spreadLabels(labels: readonly LabelBox[], obstacles: readonly LabelBox[] = []): Map<string, { x: number; y: number }> {
  const placed: LabelBox[] = [...obstacles];
  const result = new Map<string, { x: number; y: number }>();
  for (const label of labels) {
    let candidate = label;
    for (let step = 1; placed.some((p) => overlaps(candidate, p)); step += 1) {
      const offset = Math.ceil(step / 2) * (label.height + GAP) * (step % 2 === 1 ? 1 : -1);
      candidate = { ...label, y: label.y + offset };
    }
    placed.push(candidate);
    result.set(label.id, { x: candidate.x, y: candidate.y });
  }
  return result;
}
