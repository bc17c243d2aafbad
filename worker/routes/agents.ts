/** /api/projects/:projectId/agents: agents.json and one agent at a time. */
import { Hono } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { jsonBody, queryWith } from '../http/validate.ts';
import { ok } from '../http/respond.ts';
import { commitContext, param } from '../http/context.ts';
import { projectAccess } from '../middleware/project-access.ts';
import { PutAgentInput } from '../../shared/api/store.ts';
import { deleteAgent, getAgents, putAgent } from '../store/agents.ts';
import { BaseRevisionQuery } from './workflows.ts';
import { packageFilePath, saveResult } from '../package-io/validate-stored.ts';
import { guardAgent } from '../package-io/save-guard.ts';

export const agentRoutes = new Hono<AppEnv>()
  .use(projectAccess())
  .get('/', async (c) => ok(c, await getAgents(c.var.db, c.var.projectId)))
  .put('/:agentId', jsonBody(PutAgentInput), async (c) => {
    const { agent, baseRevision } = c.req.valid('json');
    const current = await getAgents(c.var.db, c.var.projectId);
    guardAgent(param(c, 'agentId'), agent, current.agents.map((a) => a.id));
    const revision = await putAgent(c.var.db, commitContext(c), param(c, 'agentId'), agent, baseRevision);
    return ok(c, await saveResult(c.var.db, c.var.projectId, revision, packageFilePath.agents()));
  })
  .delete('/:agentId', queryWith(BaseRevisionQuery), async (c) => {
    const { baseRevision } = c.req.valid('query');
    return ok(c, { revision: await deleteAgent(c.var.db, commitContext(c), param(c, 'agentId'), baseRevision) });
  });
