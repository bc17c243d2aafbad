/**
 * The Builder's step save in two D1 round trips: one batch reading the stored package (which
 * holds the workflow's revision, the step as it is and who owns the target path), then the commit
 * batch, whose revision guard refuses the write if the workflow changed in between. The answer's
 * validation runs on that package with the step as written, not on a third read.
 */
import type { Db } from '../db/client.ts';
import type { CommitContext } from '../store/commit.ts';
import { commitStep, stepPathFor } from '../store/workflows.ts';
import { ApiError } from '../../shared/api-error.ts';
import { validatePackage } from '../../shared/bmad/index.ts';
import { guardStep } from './save-guard.ts';
import { storedPackageFrom, storedPackageQueries, type StoredPackageRows } from './stored-package.ts';
import { saveResultOf, type SaveResult } from './validate-stored.ts';

export interface StepSaveInput {
  markdown: string;
  path?: string | undefined;
  baseRevision?: number | undefined;
}

/** `preloaded`: the rows of storedPackageQueries when they were read with who-is-asking (then the save makes one round trip). */
export async function saveStep(
  db: Db,
  ctx: CommitContext,
  workflowId: string,
  nodeId: string,
  input: StepSaveInput,
  preloaded?: StoredPackageRows,
): Promise<SaveResult> {
  const rows: StoredPackageRows = preloaded ?? (await db.batch(storedPackageQueries(db, ctx.projectId)));
  const [, workflowRows, stepRows] = rows;
  const workflow = workflowRows.find((w) => w.id === workflowId);
  if (!workflow) throw new ApiError('WORKFLOW_NOT_FOUND', { message: `There is no workflow "${workflowId}" in this project.` });
  const existing = stepRows.find((s) => s.workflowId === workflowId && s.nodeId === nodeId) ?? null;
  const owners = new Map(stepRows.map((s) => [s.path, { workflowId: s.workflowId, nodeId: s.nodeId }]));
  const path = stepPathFor(workflowId, nodeId, input, existing, (p) => owners.has(p));
  guardStep(path, nodeId, input.markdown);
  const written = await commitStep(db, ctx, workflowId, nodeId, input, { revision: workflow.revision, existing, owners });
  // The package as the commit left it: this step replaced (or added), steps in path order as stored.
  const step = { projectId: ctx.projectId, workflowId, nodeId, path: written.path, markdown: input.markdown, updatedAt: '' };
  const steps = [...stepRows.filter((s) => s !== existing), step].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const { pkg } = storedPackageFrom([rows[0], rows[1], steps, rows[3]]);
  return saveResultOf(validatePackage(pkg), written.revision, written.path);
}
