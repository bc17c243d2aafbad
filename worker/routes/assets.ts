/** /api/projects/:projectId/assets: list, read, write, delete and rename text assets by path. */
import { Hono } from 'hono';
import * as z from 'zod';
import type { AppEnv } from '../app-env.ts';
import { jsonBody, queryWith } from '../http/validate.ts';
import { ok } from '../http/respond.ts';
import { commitContext } from '../http/context.ts';
import { projectAccess } from '../middleware/project-access.ts';
import { PutAssetInput, RenameAssetInput } from '../../shared/api/store.ts';
import { saveResult } from '../package-io/validate-stored.ts';
import { deleteAsset, getAsset, listAssets, putAsset, renameAsset } from '../store/assets.ts';

const PathQuery = z.strictObject({
  path: z.string().min(1, 'Give the asset path, e.g. ?path=assets/notes.md').max(300),
  baseRevision: z.coerce.number().int().min(0).optional(),
});

export const assetRoutes = new Hono<AppEnv>()
  .use(projectAccess())
  .get('/', async (c) => ok(c, await listAssets(c.var.db, c.var.projectId)))
  .get('/file', queryWith(PathQuery), async (c) => ok(c, await getAsset(c.var.db, c.var.projectId, c.req.valid('query').path)))
  .put('/file', jsonBody(PutAssetInput), async (c) => {
    const input = c.req.valid('json');
    const revision = await putAsset(c.var.db, commitContext(c), input);
    return ok(c, await saveResult(c.var.db, c.var.projectId, revision, input.path));
  })
  .delete('/file', queryWith(PathQuery), async (c) => {
    const { path, baseRevision } = c.req.valid('query');
    return ok(c, { revision: await deleteAsset(c.var.db, commitContext(c), path, baseRevision) });
  })
  .post('/rename', jsonBody(RenameAssetInput), async (c) =>
    ok(c, { revision: await renameAsset(c.var.db, commitContext(c), c.req.valid('json')) }),
  );
