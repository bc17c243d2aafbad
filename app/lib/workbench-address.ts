/**
 * What a workbench address names (target type, mode, ids) and how to write one, without the zod
 * reader of `ai-target.ts`: the top bar's mentions link here on every page, so this stays light.
 */

export const AI_TARGET_TYPES = ['workflow', 'step', 'agent', 'asset'] as const;
export type AiTargetType = (typeof AI_TARGET_TYPES)[number];

export const AI_MODES = ['create', 'optimize'] as const;
export type AiMode = (typeof AI_MODES)[number];

export interface AiTarget {
  targetType: AiTargetType;
  mode: AiMode;
  /** The object worked on (workflow id, node id, agent id, asset path); absent when creating. */
  targetId?: string;
  /** The workflow of a step, or the workflow itself. */
  workflowId?: string;
}

/** The query string of a workbench address (without the leading `?`). */
export function workbenchSearch(target: AiTarget, source?: string): string {
  const search = new URLSearchParams();
  if (target.workflowId !== undefined) search.set('workflowId', target.workflowId);
  search.set('targetType', target.targetType);
  if (target.targetId !== undefined) search.set('targetId', target.targetId);
  search.set('mode', target.mode);
  if (source) search.set('source', source);
  return search.toString();
}
