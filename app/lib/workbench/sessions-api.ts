/**
 * Typed client for /api/projects/:projectId/ai/sessions (durable-objects/ai-session/PROTOCOL.md,
 * "HTTP beside the socket"), used by the workbench's `WorkbenchSession`. Same result type and
 * conventions as lib/api.ts: `{ok: true, data}` or `{ok: false, error, status}`, JSON bodies,
 * `credentials: 'same-origin'`, and a 401 "sign in again" sends the user to /login?next=….
 *
 * lib/api.ts does not export its transport, so `call` is the smallest local equivalent (as in
 * lib/llm-profile-api.ts); once api.ts exports one, these calls should use it instead.
 */
import { goto } from '$app/navigation';
import { isErrorCode, type ErrorBody, type ErrorCode } from '../../../shared/errors.ts';
import { CONFIRM_SOURCE } from '../../../shared/api/ai-sessions.ts';
import type { AiTarget } from '../ai-target.ts';
import { loginHref, PUBLIC_PATHS, type ApiResult } from '../api.ts';
import type { ApplyResultView, ChangesView, MessageAccepted, SessionStateView, SessionSummaryView } from './types.ts';

type FetchLike = typeof globalThis.fetch;

/** The 401 codes that mean "sign in again" (as in api.ts). */
const SESSION_CODES: ReadonlySet<ErrorCode> = new Set(['AUTH_MISSING_TOKEN', 'AUTH_INVALID_TOKEN', 'AUTH_TOKEN_EXPIRED']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function failure(status: number, message: string, hints?: string[]): ApiResult<never> {
  return { ok: false, status, error: { code: 'INTERNAL_ERROR', message, ...(hints ? { hints } : {}) } };
}

function readError(status: number, value: unknown): ErrorBody {
  if (isRecord(value) && typeof value.code === 'string' && typeof value.message === 'string') {
    return { ...value, code: isErrorCode(value.code) ? value.code : 'INTERNAL_ERROR', message: value.message };
  }
  return { code: 'INTERNAL_ERROR', message: `The server answered with status ${status} and no usable error.` };
}

async function call<T>(fetchFn: FetchLike, method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApiResult<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetchFn(`/api${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
    });
  } catch {
    return failure(0, 'The server could not be reached.', ['Check your connection and try again in a moment.']);
  }
  let payload: unknown;
  try {
    payload = await response.json();
  } catch {
    return failure(response.status, `The server answered with status ${response.status} and no readable body.`, ['Try again in a moment.']);
  }
  if (!isRecord(payload) || !('data' in payload) || !('error' in payload)) {
    return failure(response.status, `The server answered with status ${response.status} in an unexpected form.`);
  }
  if (response.ok && payload.error === null) return { ok: true, data: payload.data as T };
  const error = readError(response.status, payload.error);
  if (response.status === 401 && SESSION_CODES.has(error.code) && !PUBLIC_PATHS.has(window.location.pathname)) {
    void goto(loginHref(window.location.pathname + window.location.search), { replaceState: true });
  }
  return { ok: false, error, status: response.status };
}

const seg = encodeURIComponent;

/** The session API bound to one `fetch`. */
export function createSessionsApi(fetchFn: FetchLike = (input, init) => globalThis.fetch(input, init)) {
  const sessions = (projectId: string) => `/projects/${seg(projectId)}/ai/sessions`;
  const session = (projectId: string, sessionId: string) => `${sessions(projectId)}/${seg(sessionId)}`;

  return {
    /** The project's sessions, newest first. */
    list: (projectId: string, status?: 'active') =>
      call<{ sessions: SessionSummaryView[] }>(fetchFn, 'GET', `${sessions(projectId)}${status ? `?status=${status}` : ''}`),
    create: (projectId: string, target: AiTarget) =>
      call<{ sessionId: string }>(fetchFn, 'POST', sessions(projectId), {
        targetType: target.targetType,
        mode: target.mode,
        ...(target.workflowId !== undefined ? { workflowId: target.workflowId } : {}),
        ...(target.targetId !== undefined ? { targetId: target.targetId } : {}),
      }),
    state: (projectId: string, sessionId: string) => call<SessionStateView>(fetchFn, 'GET', session(projectId, sessionId)),
    changes: (projectId: string, sessionId: string) => call<ChangesView>(fetchFn, 'GET', `${session(projectId, sessionId)}/changes`),
    /** 202 as soon as the turn is accepted; its progress arrives as events. */
    send: (projectId: string, sessionId: string, content: string, suggestOnly: boolean) =>
      call<MessageAccepted>(fetchFn, 'POST', `${session(projectId, sessionId)}/messages`, { content, ...(suggestOnly ? { suggestOnly } : {}) }),
    stop: (projectId: string, sessionId: string) =>
      call<{ turnId: string; status: 'stopped' }>(fetchFn, 'POST', `${session(projectId, sessionId)}/stop`, {}),
    /** Only a person applies, from this button: `confirmSource` says so. */
    apply: (projectId: string, sessionId: string, version: { changeSetId: string; contentHash: string }) =>
      call<ApplyResultView>(fetchFn, 'POST', `${session(projectId, sessionId)}/apply`, {
        changeSetId: version.changeSetId,
        contentHash: version.contentHash,
        confirmSource: CONFIRM_SOURCE,
      }),
    discard: (projectId: string, sessionId: string) => call<unknown>(fetchFn, 'POST', `${session(projectId, sessionId)}/discard`, {}),
    cancel: (projectId: string, sessionId: string) =>
      call<{ status: string }>(fetchFn, 'POST', `${session(projectId, sessionId)}/cancel`, {}),
  };
}

export type SessionsApi = ReturnType<typeof createSessionsApi>;

/** On the browser's own `fetch`. */
export const sessionsApi: SessionsApi = createSessionsApi();
