/**
 * What a workflow graph's node cards share with the pages around the graph (their width, the
 * names of node types, putting the keyboard back on a node or edge), in a plain module: importing them from GraphNodeCard.svelte would load
 * Svelte Flow with the page.
 */
import { t } from './i18n/i18n.svelte.ts';
import './i18n/graph-words.ts';
import type { LooseNode } from './workflow-model.ts';

/** Every node card has this width (px), so the layout and loop lanes can clear it. */
export const NODE_WIDTH = 180;

/** East Asian wide characters take about twice a Latin letter's width. */
const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u;

function linesOf(text: string, perLine: number): number {
  let units = 0;
  for (const char of text) units += WIDE.test(char) ? 2 : 1;
  return Math.max(1, Math.ceil(units / perLine));
}

/**
 * About how tall a node card is drawn (px), from how many lines its title and id wrap to; on the
 * high side, so a layout built on it leaves the real card room. The card's type row, title
 * (about 16 letters a line, wide characters count two) and id line, in GraphNodeCard's sizes.
 */
export function nodeHeight(node: Pick<LooseNode, 'title' | 'id'>): number {
  const frame = 6 + 15 + 15 + 3;
  const title = linesOf(node.title || node.id, 16) * 17;
  const id = node.title ? linesOf(node.id, 21) * 15 : 0;
  return frame + title + id + 4;
}

/** A node type's name in the reader's language. */
export function typeLabel(type: LooseNode['type']): string {
  return t(`graph.types.${type}`);
}

/** Puts the keyboard back on a node of the drawn graph (after its inspector was left with Escape). */
export function focusGraphNode(nodeId: string): void {
  document.querySelector<HTMLElement>(`.svelte-flow__node[data-id="${CSS.escape(nodeId)}"]`)?.focus();
}

/** Puts the keyboard back on an edge of the drawn graph (the canvas names edges `edge-<index>`). */
export function focusGraphEdge(index: number): void {
  document.querySelector<SVGElement>(`.svelte-flow__edge[data-id="edge-${index}"]`)?.focus();
}
