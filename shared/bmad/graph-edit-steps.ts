/**
 * Which step files a graph edit rewrites so their `transitions` match the new edges: the steps
 * whose outgoing edges changed, and the steps the edit creates. The Builder builds its request
 * with these functions and the Worker derives the same files again, so a client that sends
 * stale transitions cannot store them.
 */
import { syncStepTransitions, transitionsFromEdges, type EdgeLike } from './step-transitions.ts';

export interface StepFileText {
  nodeId: string;
  markdown: string;
}

function edgesOf(graphText: string): EdgeLike[] {
  try {
    const graph: unknown = JSON.parse(graphText);
    const edges = typeof graph === 'object' && graph !== null ? (graph as { edges?: unknown }).edges : undefined;
    return Array.isArray(edges) ? edges.filter((e): e is EdgeLike => typeof e === 'object' && e !== null) : [];
  } catch {
    return [];
  }
}

/** The nodes whose outgoing edges (target, label, default flag, condition) differ between two graph texts. */
export function sourcesWithChangedEdges(before: string, after: string): Set<string> {
  const old = edgesOf(before);
  const now = edgesOf(after);
  const sources = new Set([...old, ...now].map((e) => e.from).filter((id): id is string => typeof id === 'string'));
  const changed = new Set<string>();
  for (const id of sources) {
    if (JSON.stringify(transitionsFromEdges(old, id)) !== JSON.stringify(transitionsFromEdges(now, id))) changed.add(id);
  }
  return changed;
}

/** `markdown` of the step `nodeId` with the transitions of its edges in `graphText`; unchanged when it agrees or cannot be read. */
export function stepWithGraphTransitions(graphText: string, nodeId: string, markdown: string): string {
  return syncStepTransitions(markdown, transitionsFromEdges(edgesOf(graphText), nodeId)) ?? markdown;
}

/**
 * The existing step files (`steps`, without those the edit deletes) that must change: each step
 * whose node's outgoing edges changed and whose transitions no longer agree, rewritten.
 */
export function transitionUpdates(before: string, after: string, steps: readonly StepFileText[]): StepFileText[] {
  const changed = sourcesWithChangedEdges(before, after);
  const updates: StepFileText[] = [];
  for (const step of steps) {
    if (!changed.has(step.nodeId)) continue;
    const markdown = stepWithGraphTransitions(after, step.nodeId, step.markdown);
    if (markdown !== step.markdown) updates.push({ nodeId: step.nodeId, markdown });
  }
  return updates;
}
