/**
 * What a workflow graph's node cards share with the pages around the graph (their width, the
 * names of node types), in a plain module: importing them from GraphNodeCard.svelte would load
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
