/**
 * /api/projects/:projectId/history: what changed, by whom, with the content before; revert.
 * `POST /:historyId/revert` undoes that one change, keeping later edits to the object (a
 * three-way merge; 409 HISTORY_REVERT_CONFLICT when they touched the same lines, nothing written).
 * `POST /:historyId/restore-before {baseRevision}` puts back the whole content from before the
 * change, discarding later edits (they stay in history); baseRevision is the revision the person saw.
 */
import { Hono } from 'hono';
import * as z from 'zod';
import type { AppEnv } from '../app-env.ts';
import { jsonBody, queryWith } from '../http/validate.ts';
import { ok } from '../http/respond.ts';
import { commitContext, param } from '../http/context.ts';
import { projectAccess } from '../middleware/project-access.ts';
import { getHistoryEntry, listHistory } from '../store/history.ts';
import { revertEntry } from '../store/history-revert.ts';
import { RestoreBeforeInput } from '../../shared/api/store.ts';

const HistoryQuery = z.strictObject({
  objectKey: z.string().max(400).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  before: z.string().max(200).optional(),
});

export const historyRoutes = new Hono<AppEnv>()
  .use(projectAccess())
  .get('/', queryWith(HistoryQuery), async (c) => ok(c, await listHistory(c.var.db, c.var.projectId, c.req.valid('query'))))
  .get('/:historyId', async (c) => ok(c, { entry: await getHistoryEntry(c.var.db, c.var.projectId, param(c, 'historyId')) }))
  .post('/:historyId/revert', async (c) => ok(c, await revertEntry(c.var.db, commitContext(c), param(c, 'historyId'), 'undo')))
  .post('/:historyId/restore-before', jsonBody(RestoreBeforeInput), async (c) =>
    ok(c, await revertEntry(c.var.db, commitContext(c), param(c, 'historyId'), 'restore', c.req.valid('json').baseRevision)),
  );
