/**
 * The Builder's workflow.md and graph saves in two D1 round trips when the stored package came
 * with who-is-asking (auth/preload.ts): the commit batch, whose revision guard refuses the write if
 * the workflow changed since, and the answer's validation on that package with the file as written.
 * Without it: read the workflow, commit, then validate the package as stored.
 */
import type { Db } from '../db/client.ts';
import type { CommitContext } from '../store/commit.ts';
import { putWorkflowFile, type WorkflowFile } from '../store/workflows.ts';
import { ApiError } from '../../shared/api-error.ts';
import { validatePackage } from '../../shared/bmad/index.ts';
import { storedPackageFrom, type StoredPackageRows } from './stored-package.ts';
import { packageFilePath, saveResult, saveResultOf, type SaveResult } from './validate-stored.ts';

export async function saveWorkflowFile(
  db: Db,
  ctx: CommitContext,
  workflowId: string,
  file: WorkflowFile,
  content: string,
  baseRevision: number | undefined,
  preloaded?: StoredPackageRows,
): Promise<SaveResult> {
  const filePath = file === 'workflow' ? packageFilePath.workflowMd(workflowId) : packageFilePath.graph(workflowId);
  if (!preloaded) {
    const revision = await putWorkflowFile(db, ctx, workflowId, file, content, baseRevision);
    return saveResult(db, ctx.projectId, revision, filePath);
  }
  const [projectRows, workflowRows, stepRows, assetRows] = preloaded;
  const current = workflowRows.find((w) => w.id === workflowId);
  if (!current) throw new ApiError('WORKFLOW_NOT_FOUND', { message: `There is no workflow "${workflowId}" in this project.` });
  const revision = await putWorkflowFile(db, ctx, workflowId, file, content, baseRevision, undefined, current);
  // The package as the commit left it: this workflow's file replaced.
  const written = { ...current, ...(file === 'workflow' ? { workflowMd: content } : { graphJson: content }) };
  const { pkg } = storedPackageFrom([projectRows, workflowRows.map((w) => (w === current ? written : w)), stepRows, assetRows]);
  return saveResultOf(validatePackage(pkg), revision, filePath);
}
