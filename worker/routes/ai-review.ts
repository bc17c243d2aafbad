/**
 * The shared review of a session's staged changes (issue 15): line comments and replies, resolve
 * and reopen, approvals, "request changes", and the owner's dismiss and override. Mounted inside
 * the session routes, behind their role check (viewers may comment; the session object decides
 * the finer rules: who resolves, who may approve which version).
 */
import { Hono } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { param } from '../http/context.ts';
import { ok } from '../http/respond.ts';
import { jsonBody } from '../http/validate.ts';
import { ApproveInput, ChangeRequestInput, CommentInput, commentRequestOf, DismissInput, GraphUndoInput, OverrideInput } from '../../shared/api/ai-sessions.ts';
import { actorOf, sessionStub, unwrap } from './session-rpc.ts';

export const aiReviewRoutes = new Hono<AppEnv>()
  .post('/:sessionId/comments', jsonBody(CommentInput), async (c) => {
    const stub = await sessionStub(c);
    const result = unwrap(await stub.comment(c.var.projectId, actorOf(c), commentRequestOf(c.req.valid('json'))));
    return ok(c, result, 201);
  })
  // "Address the open comments": the open threads become the AI's next turn (202, like a message).
  .post('/:sessionId/address-comments', async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.addressComments(c.var.projectId, actorOf(c))), 202);
  })
  .post('/:sessionId/threads/:threadId/resolve', async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.setThreadStatus(c.var.projectId, actorOf(c), param(c, 'threadId'), 'resolved')));
  })
  .post('/:sessionId/threads/:threadId/reopen', async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.setThreadStatus(c.var.projectId, actorOf(c), param(c, 'threadId'), 'open')));
  })
  .post('/:sessionId/approvals', jsonBody(ApproveInput), async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.approve(c.var.projectId, actorOf(c), c.req.valid('json'))));
  })
  .delete('/:sessionId/approvals/me', async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.withdrawApproval(c.var.projectId, actorOf(c))));
  })
  .post('/:sessionId/approvals/override', jsonBody(OverrideInput), async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.overrideApprovals(c.var.projectId, actorOf(c), c.req.valid('json'))));
  })
  .post('/:sessionId/change-requests', jsonBody(ChangeRequestInput), async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.requestChanges(c.var.projectId, actorOf(c), c.req.valid('json'))), 201);
  })
  .delete('/:sessionId/change-requests/me', async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.withdrawChangeRequest(c.var.projectId, actorOf(c))));
  })
  // Undo one node or edge of a graph diff (the session object checks the role, the turn and the version).
  .post('/:sessionId/graph-undo', jsonBody(GraphUndoInput), async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.undoGraphPart(c.var.projectId, actorOf(c), c.req.valid('json'))));
  })
  .post('/:sessionId/change-requests/:requestId/dismiss', jsonBody(DismissInput), async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.dismissChangeRequest(c.var.projectId, actorOf(c), param(c, 'requestId'), c.req.valid('json').reason)));
  });
