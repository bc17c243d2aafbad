/**
 * How a drawn workflow graph's edges run, top to bottom, in the editor's canvas and the
 * Workbench's graph diff alike. Pure: given where each card is and about how tall it is drawn:
 *
 * - `routed`: both ends where the layout (auto-layout.ts) put them, so the edge takes the
 *   layout's route, clear of the other cards, its label where the layout made room for it.
 * - `step`: a downward edge with an end somewhere else (a person dragged it there): down from
 *   the source's bottom, across a channel clear of the cards, down into the target's top; its
 *   label on the channel.
 * - `loop`: to a node that is not below the source's bottom (back up a loop, or beside it): out
 *   of the source's right side, along a lane right of every card between the two, into the
 *   target's right side; its label right of the lane.
 *
 * Labels are then moved clear of the cards and of each other (edge-labels.ts).
 */
import type { Layout } from './auto-layout.ts';
import { labelSize, spreadLabels, type LabelBox } from './edge-labels.ts';
import type { Point } from './workflow-model.ts';

export interface EdgeToDraw {
  /** The edge's place in the graph (what routes are keyed by). */
  index: number;
  from: string;
  to: string;
  /** The text drawn on it. */
  text: string;
}

export interface DrawnEdge {
  index: number;
  kind: 'routed' | 'step' | 'loop';
  /** `routed`: the layout's bends between the ends, top to bottom. */
  bends: Point[];
  /** `step`: the y of the channel the edge crosses on. */
  channelY: number;
  /** `loop`: the x of its lane. */
  laneX: number;
  /** Centre of the label, clear of the cards and of the other labels. */
  label: Point;
}

export interface EdgePlanInput {
  edges: readonly EdgeToDraw[];
  /** Top-left corner of each card. */
  placed: ReadonlyMap<string, Point>;
  /** About how tall each card is drawn. */
  heights: ReadonlyMap<string, number>;
  layout: Layout;
  nodeWidth: number;
}

/** Room kept between an edge or label and a card, and the least drop a `step` edge needs. */
const CLEAR = 10;
const MIN_DROP = 2 * CLEAR + 8;

interface Card {
  id: string;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** A channel y between the source's bottom and the target's top, nearest the middle, that neither the crossing nor its label puts on a card. */
function channelY(sx: number, sy: number, tx: number, ty: number, label: { width: number; height: number }, cards: readonly Card[]): number {
  const middle = (sy + ty) / 2;
  let lo = sy + CLEAR;
  let hi = ty - CLEAR;
  for (const c of cards) {
    // The straight part down from the source stops above a card under it; the one into the target starts below a card over it.
    if (c.left - CLEAR < sx && sx < c.right + CLEAR && c.top >= sy) hi = Math.min(hi, c.top - CLEAR);
    if (c.left - CLEAR < tx && tx < c.right + CLEAR && c.bottom <= ty) lo = Math.max(lo, c.bottom + CLEAR);
  }
  const mx = (sx + tx) / 2;
  const left = Math.min(sx, tx, mx - label.width / 2) - CLEAR;
  const right = Math.max(sx, tx, mx + label.width / 2) + CLEAR;
  const blocked = cards
    .filter((c) => c.left < right && left < c.right)
    .map((c) => [c.top - CLEAR - label.height / 2, c.bottom + CLEAR + label.height / 2] as const);
  const free = (y: number) => y >= lo && y <= hi && blocked.every(([top, bottom]) => y <= top || y >= bottom);
  const candidates = [middle, lo, hi, ...blocked.flat()].filter(free);
  if (candidates.length === 0) return Math.min(Math.max(middle, sy + CLEAR), ty - CLEAR);
  return candidates.reduce((best, y) => (Math.abs(y - middle) < Math.abs(best - middle) ? y : best));
}

export function planEdges(input: EdgePlanInput): DrawnEdge[] {
  const { placed, heights, layout, nodeWidth } = input;
  const height = (id: string) => heights.get(id) ?? 0;
  const cards: Card[] = [...placed].map(([id, p]) => ({ id, left: p.x, right: p.x + nodeWidth, top: p.y, bottom: p.y + height(id) }));
  const atLayout = (id: string) => {
    const at = placed.get(id)!;
    const laid = layout.nodes.get(id);
    return laid !== undefined && Math.abs(at.x - laid.x) < 1 && Math.abs(at.y - laid.y) < 1;
  };

  let loopCount = 0;
  const drawn = input.edges
    .filter((e) => placed.has(e.from) && placed.has(e.to))
    .map((edge): DrawnEdge & { size: { width: number; height: number } } => {
      const size = labelSize(edge.text);
      const route = atLayout(edge.from) && atLayout(edge.to) ? layout.routes.get(edge.index) : undefined;
      const none = { bends: [], channelY: 0, laneX: 0 };
      if (route) return { index: edge.index, kind: 'routed', ...none, bends: route.bends, label: route.label, size };
      const from = placed.get(edge.from)!;
      const to = placed.get(edge.to)!;
      const sx = from.x + nodeWidth / 2;
      const sy = from.y + height(edge.from);
      const tx = to.x + nodeWidth / 2;
      if (edge.from !== edge.to && to.y >= sy + MIN_DROP) {
        const others = cards.filter((c) => c.id !== edge.from && c.id !== edge.to);
        const y = channelY(sx, sy, tx, to.y, size, others);
        return { index: edge.index, kind: 'step', ...none, channelY: y, label: { x: (sx + tx) / 2, y }, size };
      }
      // A lane right of every card between the two ends; each further loop gets its own lane.
      const top = Math.min(from.y, to.y);
      const bottom = Math.max(from.y, to.y);
      const passed = [...placed.values()].filter((p) => p.y >= top && p.y <= bottom);
      const laneX = Math.max(...passed.map((p) => p.x + nodeWidth)) + 28 + 16 * loopCount++;
      // Right of the lane (the lane runs beside the cards, so a label centred on it would cover them).
      const label = { x: laneX + size.width / 2 + 4, y: (from.y + 0.7 * height(edge.from) + to.y + 0.3 * height(edge.to)) / 2 };
      return { index: edge.index, kind: 'loop', ...none, laneX, label, size };
    });

  const obstacles: LabelBox[] = cards.map((c) => ({ id: `card:${c.id}`, x: (c.left + c.right) / 2, y: (c.top + c.bottom) / 2, width: c.right - c.left, height: c.bottom - c.top }));
  const spread = spreadLabels(
    drawn.map((d) => ({ id: String(d.index), ...d.label, ...d.size })),
    obstacles,
  );
  return drawn.map(({ size: _size, ...d }) => ({ ...d, label: spread.get(String(d.index)) ?? d.label }));
}
