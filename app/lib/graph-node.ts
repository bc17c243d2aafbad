/**
 * What a workflow graph's node cards share with the pages around the graph (their width, the
 * names of node types), in a plain module: importing them from GraphNodeCard.svelte would load
 * Svelte Flow with the page.
 */
import type { LooseNode } from './workflow-model.ts';

/** Every node card has this width (px), so the layout and loop lanes can clear it. */
export const NODE_WIDTH = 180;

export const TYPE_LABELS: Record<LooseNode['type'], string> = {
  step: 'Step',
  decision: 'Decision',
  merge: 'Merge',
  end: 'End',
  subworkflow: 'Subworkflow',
  unknown: 'Unknown type',
};
