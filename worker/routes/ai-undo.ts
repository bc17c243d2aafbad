/**
 * Keep and undo per file and per hunk (issue 16), mounted inside the session routes behind their
 * role check: undo and re-apply need an editor (the session object checks again and refuses during
 * a turn); keep marks are a reviewer's own notes, so viewers may set them too.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { param } from '../http/context.ts';
import { ok } from '../http/respond.ts';
import { jsonBody } from '../http/validate.ts';
import { KeepInput, UndoInput } from '../../shared/api/ai-undo.ts';
import { actorOf, sessionStub, unwrap } from './session-rpc.ts';

export const aiUndoRoutes = new Hono<AppEnv>()
  .post('/:sessionId/undo', jsonBody(UndoInput), async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.undoChange(c.var.projectId, actorOf(c), c.req.valid('json'))), 201);
  })
  .post('/:sessionId/undo/:undoId/reapply', async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.reapplyUndo(c.var.projectId, actorOf(c), param(c, 'undoId'))), 201);
  })
  .get('/:sessionId/keep-marks', async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.keepMarks(c.var.projectId, actorOf(c))));
  })
  .post('/:sessionId/keep-marks', jsonBody(KeepInput), async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.setKeepMark(c.var.projectId, actorOf(c), c.req.valid('json'))));
  });
