/**
 * /api/projects/:projectId/ai/sessions — the AI session lifecycle, the shared
 * review, and the live channel's upgrade. The Worker checks the cookie (requireUser), the role
 * (projectAccess: viewers read and watch, editors stage, review, apply and cancel) and that the
 * session belongs to the project; the session's Durable Object does the rest.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { ApiError } from '../../shared/api-error.ts';
import { param } from '../http/context.ts';
import { ok } from '../http/respond.ts';
import { jsonBody, optionalJsonBody, queryWith } from '../http/validate.ts';
import { projectAccess } from '../middleware/project-access.ts';
import { loginSessionId } from '../auth/login-session-id.ts';
import { insertSession } from '../store/ai-sessions.ts';
import { appliedFiles, listSessions } from '../store/ai-session-list.ts';
import { readArchive } from '../store/ai-session-archive.ts';
import { newId, nowIso } from '../../shared/ids.ts';
import { IDENTITY_HEADERS } from '../../shared/protocol.ts';
import {
  ApplyInput,
  CONFIRM_SOURCE,
  CreateSessionInput,
  MessageInput,
  MessageQuery,
  SessionListQuery,
  UpdateSessionInput,
  SessionStateQuery,
  StageInput,
  ValidateInput,
  type MessageStillRunning,
} from '../../shared/api/ai-sessions.ts';
import { SessionMode, TargetType, type SessionMeta } from '../../shared/ai/session.ts';
import { checkAssetPath } from '../../shared/bmad/asset-path.ts';
import { ID_PATTERN } from '../../shared/bmad/formats.ts';
import { actorOf, sessionObject, sessionStub, unwrap, verifiedCaller } from './session-rpc.ts';
import { aiReviewRoutes } from './ai-review.ts';
import { aiVersionRoutes } from './ai-versions.ts';
import { aiRebaseRoutes } from './ai-rebase.ts';
import { aiUndoRoutes } from './ai-undo.ts';
import { definePreload } from '../auth/preload.ts';
import { takePreloaded } from '../middleware/preloaded.ts';
import { sealedProfileQuery } from '../llm/profile-store.ts';
import type { SealedLlmProfile } from '../../shared/llm/types.ts';
import { projectContextFrom, projectContextQueries, type ProjectContextRows } from '../../durable-objects/ai-session/overlay/baseline.ts';

type Ctx = Context<AppEnv>;

/** Viewers may comment, reply, and resolve threads they started (the session checks who may resolve); every other write needs an editor. */
const VIEWER_WRITES = /\/ai\/sessions\/[^/]+\/(comments|keep-marks|threads\/[^/]+\/(resolve|reopen))$/;

function sessionAccess(): MiddlewareHandler<AppEnv> {
  const viewer = projectAccess({ write: 'viewer' });
  const editor = projectAccess();
  return (c, next) => (c.req.method === 'POST' && VIEWER_WRITES.test(c.req.path) ? viewer(c, next) : editor(c, next));
}

interface Target {
  workflowId: string | null;
  targetType: TargetType;
  targetId: string | null;
  mode: SessionMode;
}

/**
 * Check the requested target's shape: known kind, required context, well-formed ids. Whether it
 * exists is checked by the session object against the baseline it loads anyway (issue 19: one
 * round trip fewer), which refuses a missing (or, to create, an existing) target and keeps nothing.
 */
function resolveTarget(input: ReturnType<typeof CreateSessionInput.parse>): Target {
  if (!input.targetType) {
    throw new ApiError('AI_TARGET_CONTEXT_REQUIRED', { hints: ['Send targetType: workflow, step, agent or asset.'] });
  }
  const targetType = TargetType.safeParse(input.targetType);
  if (!targetType.success) {
    throw new ApiError('AI_TARGET_NOT_SUPPORTED', { message: `The AI cannot work on "${input.targetType}"; use workflow, step, agent or asset.` });
  }
  const mode = SessionMode.safeParse(input.mode ?? 'optimize');
  if (!mode.success) throw new ApiError('VALIDATION_FAILED', { message: 'mode must be "create" or "optimize".' });
  const type = targetType.data;
  let workflowId = input.workflowId ?? null;
  let targetId = input.targetId ?? null;
  const optimize = mode.data === 'optimize';
  const requireContext = (what: string) => {
    throw new ApiError('AI_TARGET_CONTEXT_REQUIRED', { message: `A ${type} session needs ${what}.` });
  };
  const checkId = (id: string, what: string) => {
    if (!ID_PATTERN.test(id)) throw new ApiError('VALIDATION_FAILED', { message: `"${id}" is not a valid ${what} id.` });
  };

  switch (type) {
    case 'workflow': {
      if (workflowId && targetId && workflowId !== targetId) {
        throw new ApiError('AI_TARGET_CONTEXT_MISMATCH', { message: 'For a workflow session, workflowId and targetId must name the same workflow.' });
      }
      workflowId = workflowId ?? targetId;
      targetId = workflowId;
      if (optimize && !workflowId) requireContext('the workflow to optimize (workflowId)');
      if (workflowId) checkId(workflowId, 'workflow');
      break;
    }
    case 'step': {
      if (!workflowId) requireContext('the workflow the step belongs to (workflowId)');
      if (optimize && !targetId) requireContext('the step to optimize (targetId)');
      if (targetId) checkId(targetId, 'step');
      break;
    }
    case 'agent': {
      if (optimize && !targetId) requireContext('the agent to optimize (targetId)');
      if (targetId) checkId(targetId, 'agent');
      break;
    }
    case 'asset': {
      if (optimize && !targetId) requireContext('the asset to optimize (targetId, its path)');
      if (targetId) {
        const check = checkAssetPath(targetId);
        if (!check.ok) throw new ApiError('ASSET_INVALID_PATH', { message: check.message, ...(check.hint ? { hints: [check.hint] } : {}) });
      }
      break;
    }
    default: {
      const never: never = type;
      throw new Error(`unknown target ${String(never)}`);
    }
  }
  return { workflowId: type === 'agent' || type === 'asset' ? null : workflowId, targetType: type, targetId, mode: mode.data };
}

/**
 * Creating a session reads the project context (the package, its revisions and settings) and the
 * creator's AI profile (sealed) with who-is-asking and hands them to the new object, which keeps
 * them rather than reading D1 again: then only the session row is left (two round trips), and the
 * creator's first message reads nothing.
 */
export const createSessionPreload = definePreload({
  method: 'POST',
  route: '/api/projects/:projectId/ai/sessions',
  queries: (db, scope) => [...projectContextQueries(db, scope.projectId, scope.member), sealedProfileQuery(db, scope.tokenHash, scope.member)],
  decode: (rows, scope) => ({
    context: projectContextFrom(scope.projectId, rows.slice(0, -1) as unknown as ProjectContextRows),
    senderProfile: (rows.at(-1) as SealedLlmProfile[])[0] ?? null,
  }),
});

/**
 * A message's turn needs its sender's AI profile (key still sealed; the object alone opens it): read
 * with who-is-asking, so the 202 comes after that one round trip and the turn asks D1 nothing for it.
 */
export const senderProfilePreload = definePreload({
  method: 'POST',
  route: '/api/projects/:projectId/ai/sessions/:sessionId/messages',
  queries: (db, scope) => [sealedProfileQuery(db, scope.tokenHash, scope.member)],
  decode: (rows): SealedLlmProfile | null => (rows[0] as SealedLlmProfile[])[0] ?? null,
});

export const aiSessionRoutes = new Hono<AppEnv>()
  .use(sessionAccess())
  .route('/', aiReviewRoutes)
  .route('/', aiVersionRoutes)
  .route('/', aiRebaseRoutes)
  .route('/', aiUndoRoutes)
  .post('/', jsonBody(CreateSessionInput), async (c) => {
    const input = c.req.valid('json');
    const target = resolveTarget(input);
    const sessionId = newId('as');
    const meta: SessionMeta = { sessionId, projectId: c.var.projectId, ...target, createdBy: c.var.user.id, createdAt: nowIso() };
    const stub = await sessionObject(c, sessionId);
    // The object first: it checks the target against its baseline, and a session row never
    // points at an object that does not know it.
    const preloaded = takePreloaded(c, createSessionPreload);
    const { locale } = c.var.user;
    const caller = { ...(await verifiedCaller(c)), role: c.var.role, ...(locale ? { locale } : {}) };
    unwrap(
      await stub.createSession(meta, c.var.user.name, input.userPrompt?.trim() || null, {
        tokenBudget: input.tokenBudget ?? null,
        ...(preloaded ? { context: preloaded.context } : {}),
        caller: preloaded ? { ...caller, senderProfile: preloaded.senderProfile } : caller,
      }),
    );
    const envelope = await stub.tool(c.var.projectId, actorOf(c), 'builder.context.get', {});
    const contextEnvelope = envelope.ok ? envelope.data : {};
    await insertSession(c.var.db, { sessionId, projectId: c.var.projectId, userId: c.var.user.id, target, contextEnvelope, createdAt: meta.createdAt });
    return ok(c, { sessionId, status: 'active', ...target, contextEnvelope, latestSuggestion: null }, 201);
  })
  .get('/', queryWith(SessionListQuery), async (c) => ok(c, { sessions: await listSessions(c.var.db, c.var.projectId, c.req.valid('query')) }))
  .get('/:sessionId', queryWith(SessionStateQuery), async (c) => {
    const stub = await sessionStub(c);
    const q = c.req.valid('query');
    const outcome = await stub.getState(c.var.projectId, {
      ...(q.messagesBefore !== undefined ? { messagesBefore: q.messagesBefore } : {}),
      ...(q.messagesLimit !== undefined ? { messagesLimit: q.messagesLimit } : {}),
    });
    // An ended session past its retention period: its object is empty, its view was archived to D1.
    if (!outcome.ok && outcome.error.code === 'AI_SESSION_NOT_FOUND') {
      const archive = await readArchive(c.var.db, c.var.projectId, param(c, 'sessionId'));
      if (archive) return ok(c, { sessionId: param(c, 'sessionId'), ...archive.view, archived: archive.archived });
    }
    const state = unwrap(outcome);
    return ok(c, { sessionId: state.meta.sessionId, ...state });
  })
  .patch('/:sessionId', jsonBody(UpdateSessionInput), async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.setTokenBudget(c.var.projectId, c.req.valid('json').tokenBudget)));
  })
  // One message starts one turn; the answer comes as soon as the turn is accepted (202), its
  // progress as events on the socket. A message sent while a turn runs is refused (AI_TURN_IN_PROGRESS).
  // With ?wait (scripts, CI jobs) the answer waits for the turn's end, within a bound.
  .post('/:sessionId/messages', queryWith(MessageQuery), jsonBody(MessageInput), async (c) => {
    const stub = await sessionStub(c);
    // Read with the cookie (senderProfilePreload); without it (no preload on this request) the object reads D1 itself.
    const senderProfile = takePreloaded(c, senderProfilePreload);
    const caller = await verifiedCaller(c);
    const accepted = unwrap(await stub.sendMessage(c.var.projectId, actorOf(c), c.req.valid('json'), senderProfile === undefined ? { caller } : { caller, senderProfile }));
    const wait = c.req.valid('query').wait;
    if (wait === 0) return ok(c, accepted, 202);
    const statePath = new URL(c.req.url).pathname.replace(/\/messages$/, '');
    const poll = { method: 'GET' as const, path: statePath, hint: `Read the session (GET ${statePath}) until turn.status is no longer "running", or watch its events.` };
    let waited;
    try {
      waited = await stub.waitForTurn(c.var.projectId, accepted.turnId, wait * 1000);
    } catch (error) {
      // The object restarted (eviction, deploy) while we waited: the turn resumes there on its own.
      console.warn('ai session: wait for turn interrupted', accepted.turnId, error instanceof Error ? error.name : typeof error);
      throw new ApiError('AI_TURN_WAIT_INTERRUPTED', { hints: [poll.hint], extra: { turnId: accepted.turnId, poll } });
    }
    const result = unwrap(waited);
    if (result.ended) return ok(c, result.outcome, 200);
    const running: MessageStillRunning = { ...accepted, waitedSeconds: wait, poll };
    return ok(c, running, 202);
  })
  .post('/:sessionId/stop', async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.stopTurn(c.var.projectId, actorOf(c))));
  })
  .post('/:sessionId/resume', async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.resumeTurn(c.var.projectId, actorOf(c))));
  })
  // The final diff of the session's newest apply (its overlay is empty afterwards), for the read-only view.
  .get('/:sessionId/applied', async (c) => {
    await sessionStub(c);
    return ok(c, { files: await appliedFiles(c.var.db, c.var.projectId, param(c, 'sessionId')) });
  })
  .get('/:sessionId/changes', async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.getChanges(c.var.projectId)));
  })
  .post('/:sessionId/stage', jsonBody(StageInput), async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.stage(c.var.projectId, actorOf(c), c.req.valid('json').changeSet)));
  })
  .post('/:sessionId/validate', optionalJsonBody(ValidateInput), async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.validate(c.var.projectId, c.req.valid('json').changeSetId)));
  })
  .post('/:sessionId/discard', async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.discard(c.var.projectId, actorOf(c))));
  })
  .post('/:sessionId/apply', jsonBody(ApplyInput), async (c) => {
    const input = c.req.valid('json');
    if (input.confirmSource !== CONFIRM_SOURCE) {
      throw new ApiError('AI_APPLY_REQUIRES_CONFIRMATION', {
        hints: [`Apply from the workbench's Apply button (confirmSource "${CONFIRM_SOURCE}").`],
      });
    }
    const stub = await sessionStub(c);
    const { d1Bookmark, ...result } = unwrap(
      await stub.apply(c.var.projectId, actorOf(c), {
        changeSetId: input.changeSetId,
        contentHash: input.contentHash,
        revisionBase: input.revisionBase,
      }),
    );
    // The object wrote through its own D1 session: its bookmark is what the user must read from next.
    if (d1Bookmark) c.set('d1Bookmark', d1Bookmark);
    return ok(c, result);
  })
  .post('/:sessionId/cancel', async (c) => {
    const stub = await sessionStub(c);
    return ok(c, unwrap(await stub.cancel(c.var.projectId, actorOf(c))));
  })
  .get('/:sessionId/ws', async (c) => {
    if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') {
      throw new ApiError('BAD_REQUEST', { status: 426, message: 'This address expects a WebSocket upgrade.' });
    }
    // A WebSocket upgrade is a GET, so sameOrigin() does not cover it: check here (CSWSH).
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== new URL(c.req.url).origin) throw new ApiError('FORBIDDEN_ORIGIN');
    const stub = await sessionStub(c);
    // The role goes to the object with the time taken before it was read: a membership change the
    // project channel delivers with a later time wins over it in the object (durable-objects/ai-session/sockets/members.ts).
    // requireUser read the role with the cookie, and noted the time before that read.
    const { role, readAt } = c.var.access;
    if (!role) throw new ApiError('PROJECT_NOT_FOUND');
    const headers = new Headers(c.req.raw.headers);
    // Identity comes from the Worker only: whatever of these the client sent is dropped first.
    for (const name of Object.values(IDENTITY_HEADERS)) headers.delete(name);
    headers.set(IDENTITY_HEADERS.userId, c.var.user.id);
    headers.set(IDENTITY_HEADERS.name, c.var.user.name);
    headers.set(IDENTITY_HEADERS.role, role);
    headers.set(IDENTITY_HEADERS.projectId, c.var.projectId);
    headers.set(IDENTITY_HEADERS.roleReadAt, String(readAt));
    headers.set(IDENTITY_HEADERS.loginSession, await loginSessionId(c.var.sessionTokenHash));
    headers.set(IDENTITY_HEADERS.loginExpiresAt, String(c.var.loginExpiresAt));
    if (c.var.user.locale) headers.set(IDENTITY_HEADERS.locale, c.var.user.locale);
    // Only the path goes on: the query is the client's (a `_pk` there would choose the socket's id).
    const url = new URL(c.req.url);
    url.search = '';
    return stub.fetch(new Request(url, { method: 'GET', headers }));
  });
