/**
 * The versions of a session's draft: the timeline, comparing two versions (or one with the stored
 * package) and restoring a checkpoint. Mounted inside the session routes, behind their role check:
 * viewers read the timeline and compare; restoring is a write, so it needs an editor (the session
 * object checks the role again and refuses while a turn is open).
 */
import { Hono } from 'hono';
import * as z from 'zod';
import type { AppEnv } from '../app-env.ts';
import { ApiError } from '../../shared/api-error.ts';
import { param } from '../http/context.ts';
import { ok } from '../http/respond.ts';
import { queryWith } from '../http/validate.ts';
import { CompareQuery } from '../../shared/api/ai-versions.ts';
import { actorOf, sessionStub, unwrap } from './session-rpc.ts';

const VersionNumber = z.coerce.number().int().min(1);

export const aiVersionRoutes = new Hono<AppEnv>()
  .get('/:sessionId/versions', async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.listVersions(c.var.projectId)));
  })
  .get('/:sessionId/versions/compare', queryWith(CompareQuery), async (c) => {
    const stub = await sessionStub(c);
    const { from, to } = c.req.valid('query');
    return ok(c, unwrap(await stub.compareVersions(c.var.projectId, from, to)));
  })
  .post('/:sessionId/versions/:version/restore', async (c) => {
    const version = VersionNumber.safeParse(param(c, 'version'));
    if (!version.success) throw new ApiError('VALIDATION_FAILED', { message: 'The version to restore must be a version number (1, 2, …).' });
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.restoreVersion(c.var.projectId, actorOf(c), version.data)));
  });
