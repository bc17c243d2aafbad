/**
 * Moving a session's draft onto a new baseline (issue 15 item 5): POST …/:sessionId/rebase merges
 * the staged files whose baseline moved, POST …/:sessionId/rebase/resolve writes a person's
 * resolution of one conflicted file. Mounted inside the session routes, behind their role check
 * (editors and owners); the session object checks the role again and does the rest.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { ok } from '../http/respond.ts';
import { jsonBody, optionalJsonBody } from '../http/validate.ts';
import { RebaseInput, ResolveRebaseInput } from '../../shared/api/ai-rebase.ts';
import { actorOf, sessionStub, unwrap } from './session-rpc.ts';

export const aiRebaseRoutes = new Hono<AppEnv>()
  .post('/:sessionId/rebase', optionalJsonBody(RebaseInput), async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.rebase(c.var.projectId, actorOf(c))));
  })
  .post('/:sessionId/rebase/resolve', jsonBody(ResolveRebaseInput), async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.resolveRebase(c.var.projectId, actorOf(c), c.req.valid('json'))));
  });
