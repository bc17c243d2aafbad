/** /api/projects/:projectId/agents: agents.json and one agent at a time. */
import { Hono } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { jsonBody, queryWith } from '../http/validate.ts';
import { ok } from '../http/respond.ts';
import { commitContext, param } from '../http/context.ts';
import { projectAccess } from '../middleware/project-access.ts';
import { PutAgentInput } from '../../shared/api/store.ts';
import { deleteAgent, getAgents } from '../store/agents.ts';
import { BaseRevisionQuery, storedPackagePreload } from './workflows.ts';
import { saveAgent } from '../package-io/agent-save.ts';
import { takePreloaded } from '../middleware/preloaded.ts';

/** An agent save reads the stored package with who-is-asking: then only its commit is left (two round trips). */
export const agentSavePreload = storedPackagePreload('/api/projects/:projectId/agents/:agentId');

export const agentRoutes = new Hono<AppEnv>()
  .use(projectAccess())
  .get('/', async (c) => ok(c, await getAgents(c.var.db, c.var.projectId)))
  .put('/:agentId', jsonBody(PutAgentInput), async (c) => {
    const { agent, baseRevision } = c.req.valid('json');
    return ok(c, await saveAgent(c.var.db, commitContext(c), param(c, 'agentId'), agent, baseRevision, takePreloaded(c, agentSavePreload)));
  })
  .delete('/:agentId', queryWith(BaseRevisionQuery), async (c) => {
    const { baseRevision } = c.req.valid('query');
    return ok(c, { revision: await deleteAgent(c.var.db, commitContext(c), param(c, 'agentId'), baseRevision) });
  });
