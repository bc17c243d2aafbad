/**
 * What a workflow graph's node cards share with the pages around the graph (their width, the
 * names of node types, putting the keyboard back on a node or edge), in a plain module: importing them from GraphNodeCard.svelte would load
 * Svelte Flow with the page.
 */
import { t } from './i18n/i18n.svelte.ts';
import type { LooseNode } from './workflow-model.ts';

/** Every node card has this width (px), so the layout and loop lanes can clear it. */
export const NODE_WIDTH = 180;

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
