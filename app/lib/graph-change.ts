/**
 * What one canvas edit is (`GraphChange`) and its exact inverse, which undo saves. Apart from
 * `graph-edit.ts` because the edits carry the YAML parser (step transitions) and load on the
 * first edit, while undo/redo and the types are part of the page from the start.
 */
import type { StepView } from '../../shared/api/index.ts';

export interface GraphChange {
  /** What the change did, in words ("Add step “step-2”"), for undo/redo titles. */
  label: string;
  before: string;
  after: string;
  createSteps: StepView[];
  deleteSteps: StepView[];
  /** Existing step files whose transitions follow the new edges: the file before and after. */
  updateSteps: StepUpdate[];
}

export interface StepUpdate {
  nodeId: string;
  path: string;
  before: string;
  after: string;
}

export type EditResult = { ok: true; change: GraphChange } | { ok: false; message: string };

/** The undo of a change: the graph back, created files deleted, deleted files created, rewritten files as they were. */
export function invertChange(change: GraphChange): GraphChange {
  return {
    label: change.label,
    before: change.after,
    after: change.before,
    createSteps: change.deleteSteps,
    deleteSteps: change.createSteps,
    updateSteps: change.updateSteps.map((u) => ({ ...u, before: u.after, after: u.before })),
  };
}
