/**
 * The Builder's save of one agent in two D1 round trips when the stored package came with
 * who-is-asking (auth/preload.ts): the commit batch, whose revision guard refuses the write if
 * agents.json changed since, and the answer's validation on that package with agents.json as
 * written. Without it: read agents.json, commit, then validate the package as stored.
 */
import type { Db } from '../db/client.ts';
import type { CommitContext } from '../store/commit.ts';
import { agentsFileOf, agentsViewOf, getAgents, putAgent } from '../store/agents.ts';
import { ApiError } from '../../shared/api-error.ts';
import { validatePackage } from '../../shared/bmad/index.ts';
import { guardAgent } from './save-guard.ts';
import { storedPackageFrom, type StoredPackageRows } from './stored-package.ts';
import { packageFilePath, saveResult, saveResultOf, type SaveResult } from './validate-stored.ts';

export async function saveAgent(
  db: Db,
  ctx: CommitContext,
  agentId: string,
  agent: Record<string, unknown>,
  baseRevision: number | undefined,
  preloaded?: StoredPackageRows,
): Promise<SaveResult> {
  if (!preloaded) {
    const current = await getAgents(db, ctx.projectId);
    guardAgent(agentId, agent, current.agents.map((a) => a.id));
    const { revision } = await putAgent(db, ctx, agentId, agent, baseRevision);
    return saveResult(db, ctx.projectId, revision, packageFilePath.agents());
  }
  const [projectRows, workflowRows, stepRows, assetRows] = preloaded;
  const project = projectRows[0];
  if (!project) throw new ApiError('PROJECT_NOT_FOUND');
  const file = agentsFileOf({ agentsJson: project.agentsJson, revision: project.agentsRevision });
  guardAgent(agentId, agent, agentsViewOf(file).agents.map((a) => a.id));
  const { revision, agentsJson } = await putAgent(db, ctx, agentId, agent, baseRevision, file);
  // The package as the commit left it: agents.json replaced.
  const { pkg } = storedPackageFrom([[{ ...project, agentsJson }], workflowRows, stepRows, assetRows]);
  return saveResultOf(validatePackage(pkg), revision, packageFilePath.agents());
}
