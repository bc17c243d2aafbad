/** Builds and formats the bench's result rows as a Markdown table (so a run can be pasted into bench/README.md). */

export interface ResultRow {
  name: string;
  oursMs: number;
  peerMs: number;
  oursRuns: number;
  peerRuns: number;
  /** The median of `roundRatios`. */
  ratio: number;
  /** ours / peer of each round's medians (the two ran back to back): how much the ratio moved during the run. */
  roundRatios: number[];
  peer: string;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A row from every round's samples of both sides: pooled medians, and the median of the per-round ratios. */
export function pairedRow(name: string, peer: string, samples: { ours: number[]; peer: number[] }, roundRatios: number[]): ResultRow {
  return {
    name,
    oursMs: median(samples.ours),
    peerMs: median(samples.peer),
    oursRuns: samples.ours.length,
    peerRuns: samples.peer.length,
    ratio: median(roundRatios),
    roundRatios,
    peer,
  };
}

const ratio = (value: number) => value.toFixed(value < 10 ? 2 : 1);
const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));

export function markdownTable(rows: readonly ResultRow[]): string {
  const header = ['case', 'ours, median ms', 'peer, median ms', 'ours / peer', 'per round', 'runs (ours / peer)', 'the peer is'];
  const body = rows.map((r) => [
    r.name,
    ms(r.oursMs),
    ms(r.peerMs),
    `${ratio(r.ratio)}×`,
    `${ratio(Math.min(...r.roundRatios))}–${ratio(Math.max(...r.roundRatios))}×`,
    `${r.oursRuns} / ${r.peerRuns}`,
    r.peer,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i]!.length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => (i >= 1 && i <= 5 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i >= 1 && i <= 5 ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(header), rule, ...body.map(line)].join('\n');
}
