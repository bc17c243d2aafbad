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
 *   of the source's right side, along the nearest lane right of both ends that no card is on, into
 *   the target's right side; its label right of the lane.
 * - `detour`: where neither of those gets by without crossing a card (a card between the two ends,
 *   or beside the source in a loop's way): down a little from the source's bottom, across to a
 *   lane no card is on, along it, across above the target and down into its top.
 *
 * A layout route a card dragged since now covers is not taken: such an edge steps (or detours)
 * round it like a dragged node's own edges.
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
  kind: 'routed' | 'step' | 'loop' | 'detour';
  /** `routed`: the layout's bends between the ends, top to bottom. */
  bends: Point[];
  /** `step`: the y of the channel the edge crosses on; `detour`: the y it crosses on under the source. */
  channelY: number;
  /** `loop`, `detour`: the x of its lane. */
  laneX: number;
  /** `detour`: the y it crosses on above the target. */
  entryY: number;
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

/** A straight, level or upright piece of an edge. */
interface Segment {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** Room a line keeps from a card it passes. */
const PASS = CLEAR / 2;
/** How far a `detour` drops below its source (and crosses above its target) before it turns. */
const TURN = 2 * CLEAR;
/** How far right of a card a loop's lane runs, and how far apart two loops' lanes are. */
const LANE_GAP = 28;
const LANE_STEP = 16;

const crosses = (s: Segment, c: Card): boolean =>
  Math.min(s.x1, s.x2) < c.right + PASS && c.left - PASS < Math.max(s.x1, s.x2) && Math.min(s.y1, s.y2) < c.bottom + PASS && c.top - PASS < Math.max(s.y1, s.y2);

/** No segment crosses a card; the first leaves `from` and the last enters `to`, so those two are not in their way. */
function clearPath(segments: readonly Segment[], cards: readonly Card[], from: string, to: string): boolean {
  return segments.every((segment, i) =>
    cards.every((c) => (i === 0 && c.id === from) || (i === segments.length - 1 && c.id === to) || !crosses(segment, c)),
  );
}

/** Points along RoutedEdge's curve (routedPath: each stretch an S whose ends run straight down), 17 to a stretch. */
function routePoints(points: readonly Point[]): Point[] {
  const out: Point[] = [];
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]!;
    const b = points[i]!;
    const mid = (a.y + b.y) / 2;
    for (let k = 0; k <= 16; k++) {
      const t = k / 16;
      const u = 1 - t;
      out.push({ x: u * u * u * a.x + 3 * u * u * t * a.x + 3 * u * t * t * b.x + t * t * t * b.x, y: u * u * u * a.y + 3 * u * u * t * mid + 3 * u * t * t * mid + t * t * t * b.y });
    }
  }
  return out;
}

const onCard = (p: Point, c: Card): boolean => p.x > c.left - PASS && p.x < c.right + PASS && p.y > c.top - PASS && p.y < c.bottom + PASS;

/** The path of a `step` edge crossing at `y`. */
const stepPath = (sx: number, sy: number, tx: number, ty: number, y: number): Segment[] => [
  { x1: sx, y1: sy, x2: sx, y2: y },
  { x1: sx, y1: y, x2: tx, y2: y },
  { x1: tx, y1: y, x2: tx, y2: ty },
];

/** The path of a `detour` along the lane at `x`. */
const detourPath = (sx: number, sy: number, tx: number, ty: number, exitY: number, x: number, entryY: number): Segment[] => [
  { x1: sx, y1: sy, x2: sx, y2: exitY },
  { x1: sx, y1: exitY, x2: x, y2: exitY },
  { x1: x, y1: exitY, x2: x, y2: entryY },
  { x1: x, y1: entryY, x2: tx, y2: entryY },
  { x1: tx, y1: entryY, x2: tx, y2: ty },
];

/**
 * A `detour` from the source's bottom (sx, sy) to the target's top (tx, ty) that crosses no card:
 * the lane nearest the straight way among the ones beside each card; none when every lane is taken.
 */
function detour(sx: number, sy: number, tx: number, ty: number, from: string, to: string, cards: readonly Card[]): { exitY: number; laneX: number; entryY: number } | undefined {
  let exitY = sy + TURN;
  let entryY = ty - TURN;
  // Down to a target only a little lower: one crossing height for both turns.
  if (ty > sy && entryY < exitY) exitY = entryY = (sy + ty) / 2;
  const lanes = [(sx + tx) / 2, sx, tx, ...cards.flatMap((c) => [c.left - TURN, c.right + TURN])];
  const length = (x: number) => Math.abs(sx - x) + Math.abs(x - tx);
  const laneX = lanes.sort((a, b) => length(a) - length(b)).find((x) => clearPath(detourPath(sx, sy, tx, ty, exitY, x, entryY), cards, from, to));
  return laneX === undefined ? undefined : { exitY, laneX, entryY };
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
  // The layout's routes are clear of the cards it placed; only a card moved since can be on one.
  const moved = cards.filter((c) => !atLayout(c.id));

  let loopCount = 0;
  const drawn = input.edges
    .filter((e) => placed.has(e.from) && placed.has(e.to))
    .map((edge): DrawnEdge & { size: { width: number; height: number } } => {
      const size = labelSize(edge.text);
      const from = placed.get(edge.from)!;
      const to = placed.get(edge.to)!;
      const sx = from.x + nodeWidth / 2;
      const sy = from.y + height(edge.from);
      const tx = to.x + nodeWidth / 2;
      const none = { bends: [], channelY: 0, laneX: 0, entryY: 0 };
      const route = atLayout(edge.from) && atLayout(edge.to) ? layout.routes.get(edge.index) : undefined;
      if (route) {
        const line = routePoints([{ x: sx, y: sy }, ...route.bends, { x: tx, y: to.y }]);
        const covered = moved.some((c) => c.id !== edge.from && c.id !== edge.to && line.some((p) => onCard(p, c)));
        if (!covered) return { index: edge.index, kind: 'routed', ...none, bends: route.bends, label: route.label, size };
      }
      const others = cards.filter((c) => c.id !== edge.from && c.id !== edge.to);
      const around = () => {
        const way = detour(sx, sy, tx, to.y, edge.from, edge.to, cards);
        if (!way) return undefined;
        const label = { x: way.laneX, y: (way.exitY + way.entryY) / 2 };
        return { index: edge.index, kind: 'detour' as const, ...none, channelY: way.exitY, laneX: way.laneX, entryY: way.entryY, label, size };
      };
      if (edge.from !== edge.to && to.y >= sy + MIN_DROP) {
        const y = channelY(sx, sy, tx, to.y, size, others);
        const step = { index: edge.index, kind: 'step' as const, ...none, channelY: y, label: { x: (sx + tx) / 2, y }, size };
        // A card between the two ends that no crossing gets past: round it.
        return clearPath(stepPath(sx, sy, tx, to.y, y), others, edge.from, edge.to) ? step : (around() ?? step);
      }
      // The nearest lane right of both ends that no card is on, the way out to it and back in
      // included; each further loop a lane of its own. Else round the cards from bottom to top.
      const loop = loopCount++;
      const outY = from.y + 0.7 * height(edge.from);
      const inY = to.y + 0.3 * height(edge.to);
      const lanePath = (x: number): Segment[] => [
        { x1: from.x + nodeWidth, y1: outY, x2: x, y2: outY },
        { x1: x, y1: outY, x2: x, y2: inY },
        { x1: x, y1: inY, x2: to.x + nodeWidth, y2: inY },
      ];
      const first = Math.max(from.x, to.x) + nodeWidth + LANE_GAP + LANE_STEP * loop;
      const lanes = [first, ...cards.map((c) => c.right + LANE_GAP + LANE_STEP * loop)].filter((x) => x >= first).sort((a, b) => a - b);
      const laneX = lanes.find((x) => clearPath(lanePath(x), cards, edge.from, edge.to));
      const loopAt = (x: number) => {
        // Right of the lane (the lane runs beside the cards, so a label centred on it would cover them).
        const label = { x: x + size.width / 2 + 4, y: (from.y + 0.7 * height(edge.from) + to.y + 0.3 * height(edge.to)) / 2 };
        return { index: edge.index, kind: 'loop' as const, ...none, laneX: x, label, size };
      };
      if (laneX !== undefined) return loopAt(laneX);
      return (edge.from === edge.to ? undefined : around()) ?? loopAt(lanes.at(-1)!);
    });

  const obstacles: LabelBox[] = cards.map((c) => ({ id: `card:${c.id}`, x: (c.left + c.right) / 2, y: (c.top + c.bottom) / 2, width: c.right - c.left, height: c.bottom - c.top }));
  const spread = spreadLabels(
    drawn.map((d) => ({ id: String(d.index), ...d.label, ...d.size })),
    obstacles,
  );
  return drawn.map(({ size: _size, ...d }) => ({ ...d, label: spread.get(String(d.index)) ?? d.label }));
}
