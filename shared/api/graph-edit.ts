/**
 * The canvas's one write: a whole new workflow.graph.json plus the step files that appear or
 * disappear with it and the step files whose `transitions` follow its edges, saved together as
 * one workflow revision (so undo is one revision too).
 */
import * as z from 'zod';
import { BaseRevision, PackageId } from './common.ts';

/** A canvas edit touches a handful of steps; a paste of a whole workflow goes through import. */
export const MAX_STEPS_PER_GRAPH_EDIT = 50;

const FileText = z.string().max(512 * 1024, 'This file is larger than 512 KiB.');

export const GraphEditInput = z.strictObject({
  /** The complete new graph file text. */
  graph: FileText,
  /** New step files; each goes to the `file` of its node in `graph`. */
  createSteps: z.array(z.strictObject({ nodeId: PackageId, markdown: FileText })).max(MAX_STEPS_PER_GRAPH_EDIT).default([]),
  /**
   * Existing step files whose frontmatter `transitions` change with the edges. Only transitions
   * may differ from the stored file; the Worker derives them again from the graph (and rewrites a
   * step whose edges changed even when it is left out).
   */
  updateSteps: z.array(z.strictObject({ nodeId: PackageId, markdown: FileText })).max(MAX_STEPS_PER_GRAPH_EDIT).default([]),
  /** Step files removed with their nodes. */
  deleteSteps: z.array(PackageId).max(MAX_STEPS_PER_GRAPH_EDIT).default([]),
  baseRevision: BaseRevision.optional(),
});
export type GraphEditInput = z.input<typeof GraphEditInput>;
