/** Contracts of the baseline package store: workflows, steps, agents, assets, history. */
import * as z from 'zod';
import { BaseRevision, PackageId } from './common.ts';

/** Workflow text files are generous but bounded (D1 rows cap at 2 MB; keep well below). */
const FileText = z.string().max(512 * 1024, 'This file is larger than 512 KiB.');

export const CreateWorkflowInput = z.strictObject({
  id: PackageId,
  name: z.string().trim().min(1, 'Enter a workflow name.').max(200),
});
export type CreateWorkflowInput = z.infer<typeof CreateWorkflowInput>;

export const UpdateWorkflowInput = z
  .strictObject({
    name: z.string().trim().min(1).max(200).optional(),
    isDefault: z.literal(true).optional(),
  })
  .refine((v) => Object.keys(v).length > 0, 'Nothing to change.');
export type UpdateWorkflowInput = z.infer<typeof UpdateWorkflowInput>;

export const PutTextInput = z.strictObject({ content: FileText, baseRevision: BaseRevision.optional() });
export type PutTextInput = z.infer<typeof PutTextInput>;

export const PutStepInput = z.strictObject({
  markdown: FileText,
  /** Path of the step file inside the package; defaults to `steps/<nodeId>.md` of the workflow. */
  path: z.string().max(300).optional(),
  baseRevision: BaseRevision.optional(),
});
export type PutStepInput = z.infer<typeof PutStepInput>;

export const PutAgentInput = z.strictObject({
  agent: z.record(z.string(), z.unknown()),
  baseRevision: BaseRevision.optional(),
});
export type PutAgentInput = z.infer<typeof PutAgentInput>;

export const PutAssetInput = z.strictObject({
  path: z.string().max(300),
  content: FileText,
  baseRevision: BaseRevision.optional(),
});
export type PutAssetInput = z.infer<typeof PutAssetInput>;

export const RenameAssetInput = z.strictObject({
  from: z.string().max(300),
  to: z.string().max(300),
  baseRevision: BaseRevision.optional(),
});
export type RenameAssetInput = z.infer<typeof RenameAssetInput>;

export const RevertInput = z.strictObject({ baseRevision: BaseRevision.optional() });
export type RevertInput = z.infer<typeof RevertInput>;

/**
 * "Restore as it was before this change": the revision of the object's scope the person saw when
 * they were told which later edits it discards; a newer one is a REVISION_CONFLICT.
 */
export const RestoreBeforeInput = z.strictObject({ baseRevision: BaseRevision });
export type RestoreBeforeInput = z.infer<typeof RestoreBeforeInput>;

/** A revert's answer. */
export interface RevertResult {
  revision: number;
  /** `undo`: only this change was undone; `restore`: the whole content from before it came back. */
  mode: 'undo' | 'restore';
  /** Later revisions of the object whose edits were kept (an undo merged around them). */
  kept: number[];
  /** Later revisions of the object whose edits a restore replaced (they stay in history). */
  discarded: number[];
}

export interface WorkflowSummaryView {
  id: string;
  name: string;
  isDefault: boolean;
  revision: number;
  stepCount: number;
  updatedAt: string;
}

export interface StepView {
  nodeId: string;
  path: string;
  markdown: string;
}

export interface WorkflowView extends WorkflowSummaryView {
  workflowMd: string;
  graphJson: string;
  steps: StepView[];
}

export interface AgentsView {
  revision: number;
  agentsJson: string;
  agents: Array<{ id: string; name: string; title: string }>;
}

export interface AssetSummaryView {
  path: string;
  bytes: number;
  sha256: string;
  updatedAt: string;
}

export interface AssetView extends AssetSummaryView {
  content: string;
}

export interface AssetsView {
  revision: number;
  assets: AssetSummaryView[];
}

/** What a write returns: the object's new revision (workflow, agents or assets). */
export interface WriteResult {
  revision: number;
}

export const HISTORY_ACTIONS = ['create', 'update', 'delete', 'rename', 'revert', 'ai_apply'] as const;
export type HistoryAction = (typeof HISTORY_ACTIONS)[number];

export interface HistoryEntryView {
  id: string;
  objectKey: string;
  action: HistoryAction;
  oldRevision: number;
  newRevision: number;
  actor: { id: string; name: string } | null;
  sessionId: string | null;
  changeSetId: string | null;
  createdAt: string;
  /** An AI apply an owner let through without the required approvals: who, and the reason they gave. */
  override?: { by: string | null; reason: string } | null;
}

export interface HistoryEntryDetailView extends HistoryEntryView {
  contentBefore: string | null;
  contentAfter: string | null;
  /** The revisions (oldest first) of later writes to the same object: what a revert keeps or a restore discards. */
  laterRevisions: number[];
  /**
   * The revision of the object's scope (its workflow, the agents, the assets) when this was read:
   * the revision an explicit restore names as the one its person saw. Null when the scope is gone.
   */
  scopeRevision: number | null;
}
