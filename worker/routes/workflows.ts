/** /api/projects/:projectId/workflows: workflows, their workflow.md and graph, and step files. */
import { Hono } from 'hono';
import * as z from 'zod';
import type { AppEnv } from '../app-env.ts';
import { jsonBody, queryWith } from '../http/validate.ts';
import { ApiError } from '../../shared/api-error.ts';
import { ok } from '../http/respond.ts';
import { commitContext, param } from '../http/context.ts';
import { projectAccess } from '../middleware/project-access.ts';
import { CreateWorkflowInput, PutStepInput, PutTextInput, UpdateWorkflowInput } from '../../shared/api/store.ts';
import { packageFilePath, saveResult } from '../package-io/validate-stored.ts';
import { GraphEditInput } from '../../shared/api/graph-edit.ts';
import { applyGraphEdit } from '../store/graph-edits.ts';
import { guardWorkflowFile } from '../package-io/save-guard.ts';
import { saveStep } from '../package-io/step-save.ts';
import { saveWorkflowFile } from '../package-io/workflow-file-save.ts';
import { storedPackageQueries, type StoredPackageRows } from '../package-io/stored-package.ts';
import { definePreload } from '../auth/preload.ts';
import { takePreloaded } from '../middleware/preloaded.ts';
import {
  createWorkflow,
  deleteStep,
  deleteWorkflow,
  getStep,
  getWorkflow,
  listWorkflows,
  updateWorkflowMeta,
} from '../store/workflows.ts';

/** A save of `route` (a whole path) reads the stored package with who-is-asking: then only its commit is left (two round trips). */
export function storedPackagePreload(route: string) {
  return definePreload<StoredPackageRows>({
    method: 'PUT',
    route,
    queries: (db, scope) => [...storedPackageQueries(db, scope.projectId, scope.member)],
    decode: (rows) => rows as unknown as StoredPackageRows,
  });
}

export const stepSavePreload = storedPackagePreload('/api/projects/:projectId/workflows/:workflowId/steps/:nodeId');
export const workflowMdSavePreload = storedPackagePreload('/api/projects/:projectId/workflows/:workflowId/workflow-md');
export const graphSavePreload = storedPackagePreload('/api/projects/:projectId/workflows/:workflowId/graph');

export const BaseRevisionQuery = z.strictObject({ baseRevision: z.coerce.number().int().min(0).optional() });

export const workflowRoutes = new Hono<AppEnv>()
  .use(projectAccess())
  .get('/', async (c) => ok(c, { workflows: await listWorkflows(c.var.db, c.var.projectId) }))
  .post('/', jsonBody(CreateWorkflowInput), async (c) => {
    const workflow = await createWorkflow(c.var.db, commitContext(c), c.req.valid('json'));
    return ok(c, { workflow }, 201);
  })
  .get('/:workflowId', async (c) => ok(c, { workflow: await getWorkflow(c.var.db, c.var.projectId, param(c, 'workflowId')) }))
  .patch('/:workflowId', jsonBody(UpdateWorkflowInput), async (c) => {
    const workflow = await updateWorkflowMeta(c.var.db, commitContext(c), param(c, 'workflowId'), c.req.valid('json'));
    return ok(c, { workflow });
  })
  .delete('/:workflowId', async (c) => {
    await deleteWorkflow(c.var.db, commitContext(c), param(c, 'workflowId'));
    return ok(c, { deleted: true });
  })
  .put('/:workflowId/workflow-md', jsonBody(PutTextInput), async (c) => {
    const { content, baseRevision } = c.req.valid('json');
    const workflowId = param(c, 'workflowId');
    guardWorkflowFile(workflowId, 'workflow', content);
    return ok(c, await saveWorkflowFile(c.var.db, commitContext(c), workflowId, 'workflow', content, baseRevision, takePreloaded(c, workflowMdSavePreload)));
  })
  .put('/:workflowId/graph', jsonBody(PutTextInput), async (c) => {
    const { content, baseRevision } = c.req.valid('json');
    const workflowId = param(c, 'workflowId');
    guardWorkflowFile(workflowId, 'graph', content);
    return ok(c, await saveWorkflowFile(c.var.db, commitContext(c), workflowId, 'graph', content, baseRevision, takePreloaded(c, graphSavePreload)));
  })
  // The canvas: graph plus the step files of added or deleted nodes, as one revision.
  .post('/:workflowId/graph-edit', jsonBody(GraphEditInput), async (c) => {
    const workflowId = param(c, 'workflowId');
    const revision = await applyGraphEdit(c.var.db, commitContext(c), workflowId, c.req.valid('json'));
    return ok(c, await saveResult(c.var.db, c.var.projectId, revision, packageFilePath.graph(workflowId)));
  })
  .get('/:workflowId/steps/:nodeId', async (c) =>
    ok(c, await getStep(c.var.db, c.var.projectId, param(c, 'workflowId'), param(c, 'nodeId'))),
  )
  .put('/:workflowId/steps/:nodeId', jsonBody(PutStepInput), async (c) =>
    ok(c, await saveStep(c.var.db, commitContext(c), param(c, 'workflowId'), param(c, 'nodeId'), c.req.valid('json'), takePreloaded(c, stepSavePreload))),
  )
  .delete('/:workflowId/steps/:nodeId', queryWith(BaseRevisionQuery), async (c) => {
    const { baseRevision } = c.req.valid('query');
    const revision = await deleteStep(c.var.db, commitContext(c), param(c, 'workflowId'), param(c, 'nodeId'), baseRevision);
    return ok(c, { revision });
  });
