/**
 * Which step files a graph edit rewrites so their `transitions` match the new edges: the steps
 * whose outgoing edges changed, and the steps the edit creates. The Builder builds its request
 * with these functions and the Worker derives the same files again, so a client that sends
 * stale transitions cannot store them.
 */
import { syncStepTransitions, transitionsFromEdges, withTransitions, type EdgeLike } from './step-transitions.ts';

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

export interface StoredStepFile extends StepFileText {
  path: string;
}

export interface StepFilesPlan {
  /** New step files, their transitions set from the new graph. */
  creates: StepFileText[];
  /** Existing step files that change: the client's, with transitions made to agree, and those it left out. */
  updates: Array<StoredStepFile & { before: string }>;
  problems: string[];
}

/** Whether two versions of a step file differ in nothing but their `transitions` entry. */
function onlyTransitionsDiffer(a: string, b: string, graphText: string, nodeId: string): boolean {
  if (a === b) return true;
  const list = transitionsFromEdges(edgesOf(graphText), nodeId);
  const x = withTransitions(a, list);
  return x !== null && x === withTransitions(b, list);
}

/**
 * The step files a graph edit writes, derived from the new graph whatever the client sent: a
 * created file or a client's update gets the transitions of its node's edges, a step whose edges
 * changed is rewritten even when the client left it out, and an update that changes anything
 * besides the transitions is refused (that is the step editor's job, with its own checks).
 */
export function planStepFiles(input: {
  before: string;
  after: string;
  stored: readonly StoredStepFile[];
  createSteps: readonly StepFileText[];
  updateSteps: readonly StepFileText[];
  deleteSteps: readonly string[];
}): StepFilesPlan {
  const problems: string[] = [];
  const deleted = new Set(input.deleteSteps);
  const created = new Set(input.createSteps.map((s) => s.nodeId));
  const remaining = input.stored.filter((s) => !deleted.has(s.nodeId));
  const creates = input.createSteps.map((s) => ({ nodeId: s.nodeId, markdown: stepWithGraphTransitions(input.after, s.nodeId, s.markdown) }));
  const updates: StepFilesPlan['updates'] = [];
  const sent = new Set<string>();
  for (const update of input.updateSteps) {
    const stored = remaining.find((s) => s.nodeId === update.nodeId);
    if (sent.has(update.nodeId)) problems.push(`The step file of “${update.nodeId}” is sent twice.`);
    else if (!stored || created.has(update.nodeId)) problems.push(`There is no step file of “${update.nodeId}” to update.`);
    else if (!onlyTransitionsDiffer(update.markdown, stored.markdown, input.after, update.nodeId)) {
      problems.push(`A graph edit may change only the transitions of “${update.nodeId}”; save other changes in its step editor.`);
    } else {
      const markdown = stepWithGraphTransitions(input.after, update.nodeId, update.markdown);
      if (markdown !== stored.markdown) updates.push({ ...stored, markdown, before: stored.markdown });
    }
    sent.add(update.nodeId);
  }
  const rest = remaining.filter((s) => !sent.has(s.nodeId));
  for (const derived of transitionUpdates(input.before, input.after, rest)) {
    const stored = rest.find((s) => s.nodeId === derived.nodeId)!;
    updates.push({ ...stored, markdown: derived.markdown, before: stored.markdown });
  }
  return { creates, updates, problems };
}
