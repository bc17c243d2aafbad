/** An axis-aligned box (a card, a label) and whether two overlap: the geometry the graph layout tests check against. */
export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export const intersects = (a: Box, b: Box): boolean => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
