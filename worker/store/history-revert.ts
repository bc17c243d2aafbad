/**
 * Reverting one history entry, the way `git revert` does. Nothing is ever rewritten: every revert
 * is a new revision whose history row keeps the content it replaced.
 *
 * - "Revert this change" (`undo`): when the object is still as the change left it, its content
 *   from before the change comes back. When later writes changed it since, only this change is
 *   undone: a three-way merge by lines (base: the change's after-content, ours: the content now,
 *   theirs: the change's before-content). If the later edits touched the same lines, nothing is
 *   written and HISTORY_REVERT_CONFLICT names the later revisions. A merged step, workflow.md,
 *   graph or agent must still pass the save rules (FILE_NOT_LOADABLE otherwise, nothing written).
 * - "Restore as it was before this change" (`restore`): the old whole-content restore, for when
 *   the undo is refused. It names the scope revision the person saw (`baseRevision`), so it never
 *   discards an edit they were not told about.
 */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { assets, projects, workflows, workflowSteps } from '../db/schema.ts';
import { ApiError } from '../../shared/api-error.ts';
import { parseObjectKey, type ObjectKey } from '../../shared/object-keys.ts';
import { mergeFile } from '../../durable-objects/ai-session/overlay/three-way-merge.ts';
import { expectRevision, type CommitContext } from './commit.ts';
import { deleteAsset, putAsset } from './assets.ts';
import { deleteStep, putStep, putWorkflowFile, updateWorkflowMeta } from './workflows.ts';
import { commitAgents, parseAgentsDocument } from './agents.ts';
import { eolOf } from '../../shared/bmad/index.ts';
import { guardAgent, guardStep, guardWorkflowFile } from '../package-io/save-guard.ts';
import { laterRevisions, loadEntry, meta, notRevertible, restoreWorkflow, type EntryRow } from './history.ts';
import { storedBomAt } from '../package-io/stored-package.ts';
import type { RevertResult } from '../../shared/api/store.ts';

export type RevertMode = 'undo' | 'restore';

/** The object as it is now: its text as history records it (null: absent) and its scope's revision. */
interface Current {
  text: string | null;
  revision: number;
  /** A step's file path now. */
  stepPath?: string | undefined;
  /** An asset's project's stored manifest (it lists the files uploaded with a BOM). */
  manifestJson?: string | null;
}

/** "revision 3" or "revisions 3–5". */
export function revisionSpan(revisions: readonly number[]): string {
  if (revisions.length === 0) return '';
  const first = revisions[0]!;
  const last = revisions[revisions.length - 1]!;
  return first === last ? `revision ${first}` : `revisions ${first}–${last}`;
}

async function readCurrent(db: Db, projectId: string, key: ObjectKey): Promise<Current> {
  if (key.kind === 'agent' || key.kind === 'asset') {
    const project = await db
      .select({ agentsJson: projects.agentsJson, agentsRevision: projects.agentsRevision, assetsRevision: projects.assetsRevision, manifestJson: projects.manifestJson })
      .from(projects)
      .where(eq(projects.id, projectId))
      .get();
    if (!project) throw new ApiError('PROJECT_NOT_FOUND');
    if (key.kind === 'agent') {
      const agent = parseAgentsDocument(project.agentsJson).agents.find((a) => a.id === key.agentId);
      return { text: agent ? JSON.stringify(agent, null, 2) : null, revision: project.agentsRevision };
    }
    const asset = await db
      .select({ content: assets.content })
      .from(assets)
      .where(and(eq(assets.projectId, projectId), eq(assets.path, key.path)))
      .get();
    return { text: asset?.content ?? null, revision: project.assetsRevision, manifestJson: project.manifestJson };
  }
  const [workflowRows, stepRows] = await db.batch([
    db
      .select({ revision: workflows.revision, name: workflows.name, workflowMd: workflows.workflowMd, graphJson: workflows.graphJson })
      .from(workflows)
      .where(and(eq(workflows.projectId, projectId), eq(workflows.id, key.workflowId))),
    db
      .select({ markdown: workflowSteps.markdown, path: workflowSteps.path })
      .from(workflowSteps)
      .where(
        and(
          eq(workflowSteps.projectId, projectId),
          eq(workflowSteps.workflowId, key.workflowId),
          eq(workflowSteps.nodeId, key.kind === 'step' ? key.nodeId : ''),
        ),
      ),
  ]);
  const workflow = workflowRows[0];
  if (!workflow) throw new ApiError('WORKFLOW_NOT_FOUND', { message: `There is no workflow "${key.workflowId}" in this project.` });
  const text =
    key.kind === 'step' ? (stepRows[0]?.markdown ?? null) : key.kind === 'workflow' ? workflow.workflowMd : key.kind === 'graph' ? workflow.graphJson : workflow.name;
  return { text, revision: workflow.revision, stepPath: stepRows[0]?.path };
}

/** A merged step, workflow.md or graph must pass the same save rules as a Builder save (nothing written otherwise). */
function guardMerged(key: ObjectKey, text: string, current: Current): void {
  if (key.kind === 'step') guardStep(current.stepPath ?? `workflows/${key.workflowId}/steps/${key.nodeId}.md`, key.nodeId, text);
  else if (key.kind === 'workflow' || key.kind === 'graph') guardWorkflowFile(key.workflowId, key.kind, text);
}

/** A merged agent must parse as an object and pass the agent save rules. */
function mergedAgent(agentId: string, text: string, ids: readonly string[]): Record<string, unknown> {
  let agent: unknown;
  try {
    agent = JSON.parse(text);
  } catch {
    agent = null;
  }
  if (!agent || typeof agent !== 'object' || Array.isArray(agent)) {
    throw new ApiError('FILE_NOT_LOADABLE', {
      message: `Undoing this change would leave agent "${agentId}" as text that is not a JSON object; nothing was saved.`,
      hints: ['Restore the agent as it was before this change, or edit it by hand.'],
    });
  }
  guardAgent(agentId, agent as Record<string, unknown>, ids);
  return agent as Record<string, unknown>;
}

/** Write `text` (null: remove the object) over the object, prepared against `revision`. */
async function writeObject(
  db: Db,
  ctx: CommitContext,
  key: ObjectKey,
  text: string | null,
  revision: number,
  stepPath: string | undefined,
  /** A merged result: checked against the save rules before anything is written. */
  merged: boolean,
  /** An asset brought back had a UTF-8 BOM (the export puts it back). */
  bom = false,
): Promise<number> {
  switch (key.kind) {
    case 'asset':
      return text === null
        ? deleteAsset(db, ctx, key.path, revision, 'revert')
        : putAsset(db, ctx, { path: key.path, content: text, baseRevision: revision }, { bom });
    case 'agent': {
      const project = await db.select({ agentsJson: projects.agentsJson }).from(projects).where(eq(projects.id, ctx.projectId)).get();
      if (!project) throw new ApiError('PROJECT_NOT_FOUND');
      const document = parseAgentsDocument(project.agentsJson);
      const index = document.agents.findIndex((a) => a.id === key.agentId);
      const current = index >= 0 ? document.agents[index]! : null;
      let restored: Record<string, unknown> | null = null;
      if (text !== null && merged) restored = mergedAgent(key.agentId, text, document.agents.map((a) => String(a.id)));
      else {
        try {
          restored = text === null ? null : (JSON.parse(text) as Record<string, unknown>);
        } catch {
          throw notRevertible('the recorded agent is not valid JSON');
        }
      }
      const agents = document.agents.filter((_, i) => i !== index);
      if (restored) {
        if (index >= 0) agents.splice(index, 0, restored);
        else agents.push(restored);
      }
      // The commit's guard refuses it if agents.json moved on since `revision` was read.
      return commitAgents(db, ctx, revision, { ...document, agents }, key.agentId, current, restored, 'revert', eolOf(project.agentsJson));
    }
    case 'step':
      if (text === null) return deleteStep(db, ctx, key.workflowId, key.nodeId, revision, 'revert');
      return putStep(db, ctx, key.workflowId, key.nodeId, { markdown: text, path: stepPath, baseRevision: revision }, 'revert');
    case 'workflow':
    case 'graph':
      if (text === null) throw notRevertible('undo a workflow creation by deleting the workflow');
      return putWorkflowFile(db, ctx, key.workflowId, key.kind, text, revision, 'revert');
    case 'workflow-name':
      if (text === null) throw notRevertible('there is no earlier name');
      return (await updateWorkflowMeta(db, ctx, key.workflowId, { name: text })).revision;
    default: {
      const never: never = key;
      throw new Error(`unknown key ${String(never)}`);
    }
  }
}

/**
 * Whether the asset a revert brings back had a UTF-8 BOM: its delete, or its rename away, recorded
 * it; a rename recorded before renames said so is read from the name it moved to, if that still has one.
 */
function bomBroughtBack(entry: EntryRow, current: Current): boolean {
  const recorded = meta(entry);
  if (recorded.bom === true) return true;
  return entry.action === 'rename' && typeof recorded.to === 'string' && storedBomAt(current.manifestJson ?? null, recorded.to);
}

function refuseConflict(objectKey: string, later: number[], currentRevision: number): never {
  const span = revisionSpan(later) || 'a later revision';
  throw new ApiError('HISTORY_REVERT_CONFLICT', {
    message: `This change to ${objectKey} cannot be undone on its own: ${span} changed the same lines (or removed it) since, and those edits are kept. Nothing was written.`,
    hints: [
      `Restore ${objectKey} as it was before this change, discarding the edits of ${span}; they stay in history.`,
      'Or open it in the editor and undo the change by hand.',
    ],
    extra: { objectKey, laterRevisions: later, currentRevision },
  });
}

export async function revertEntry(
  db: Db,
  ctx: CommitContext,
  historyId: string,
  mode: RevertMode = 'undo',
  baseRevision?: number,
): Promise<RevertResult> {
  const entry = await loadEntry(db, ctx.projectId, historyId);
  const key = parseObjectKey(entry.objectKey);
  if (!key) throw notRevertible('this kind of change is not tracked as content');
  if (key.kind === 'workflow' && entry.action === 'delete') {
    return { revision: await restoreWorkflow(db, ctx, entry.writeId, key.workflowId), mode, kept: [], discarded: [] };
  }
  const [later, current] = await Promise.all([laterRevisions(db, ctx.projectId, entry), readCurrent(db, ctx.projectId, key)]);
  const recordedPath = typeof meta(entry).path === 'string' ? (meta(entry).path as string) : undefined;
  const unchangedSince = current.text === entry.contentAfter;
  if (mode === 'restore' || unchangedSince) {
    // The whole content from before the change; a restore names the revision its person saw.
    const revision = mode === 'restore' ? expectRevision(current.revision, baseRevision) : current.revision;
    const written = await writeObject(db, ctx, key, entry.contentBefore, revision, recordedPath, false, bomBroughtBack(entry, current));
    return { revision: written, mode, kept: [], discarded: unchangedSince ? [] : later };
  }
  const merged = mergeFile(entry.contentAfter, current.text, entry.contentBefore);
  if (!merged.clean) refuseConflict(entry.objectKey, later, current.revision);
  if (merged.text === current.text) {
    throw new ApiError('CONFLICT', {
      message: `${entry.objectKey} already reads as it did before this change, so there is nothing to undo.`,
      hints: ['Open it in the editor to check its content.'],
    });
  }
  // A merged step keeps the path it has now (undefined: the step's own).
  if (merged.text !== null) guardMerged(key, merged.text, current);
  const written = await writeObject(db, ctx, key, merged.text, current.revision, undefined, true);
  return { revision: written, mode, kept: later, discarded: [] };
}
