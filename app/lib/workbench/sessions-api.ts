/**
 * Typed client for /api/projects/:projectId/ai/sessions (durable-objects/ai-session/PROTOCOL.md,
 * "HTTP beside the socket") and …/ai/usage, used by the workbench's `WorkbenchSession`. Same result type and
 * conventions as lib/api.ts: `{ok: true, data}` or `{ok: false, error, status}`, JSON bodies,
 * `credentials: 'same-origin'`, and a 401 "sign in again" sends the user to /login?next=….
 */
import { CONFIRM_SOURCE } from '../../../shared/api/confirm-source.ts';
import type { AiUsageByPerson } from '../../../shared/api/ai-audit.ts';
import type { AiTarget } from '../ai-target.ts';
import { request, type FetchLike, type Method } from '../api.ts';
import type { SessionListItemView } from '../../../shared/api/ai-sessions.ts';
import type { BaselineDriftView } from '../../../shared/api/ai-session-views.ts';
import type { ApplyResultView, ChangesView, FileDiffView, MessageAccepted, SessionStateView, SessionSummaryView } from './types.ts';

type RevisionBaseView = BaselineDriftView['revisionBase'];

const seg = encodeURIComponent;

function call<T>(fetchFn: FetchLike, method: Method, path: string, body?: unknown) {
  return request<T>(fetchFn, method, path, body === undefined ? {} : { body });
}

/** The session API bound to one `fetch`. */
export function createSessionsApi(fetchFn: FetchLike = (input, init) => globalThis.fetch(input, init)) {
  const sessions = (projectId: string) => `/projects/${seg(projectId)}/ai/sessions`;
  const session = (projectId: string, sessionId: string) => `${sessions(projectId)}/${seg(sessionId)}`;

  return {
    /** The project's sessions, newest first. */
    list: (projectId: string, status?: 'active') =>
      call<{ sessions: SessionSummaryView[] }>(fetchFn, 'GET', `${sessions(projectId)}${status ? `?status=${status}` : ''}`),
    /** The sessions page: every session with how it ended up, filtered (`search` from `sessionFiltersSearch`). */
    history: (projectId: string, search: string) =>
      call<{ sessions: SessionListItemView[] }>(fetchFn, 'GET', `${sessions(projectId)}${search ? `?${search}` : ''}`),
    /** The final diff of the session's newest apply. */
    applied: (projectId: string, sessionId: string) => call<{ files: FileDiffView[] }>(fetchFn, 'GET', `${session(projectId, sessionId)}/applied`),
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
    apply: (projectId: string, sessionId: string, version: { changeSetId: string; contentHash: string; revisionBase?: RevisionBaseView | undefined }) =>
      call<ApplyResultView>(fetchFn, 'POST', `${session(projectId, sessionId)}/apply`, {
        changeSetId: version.changeSetId,
        contentHash: version.contentHash,
        confirmSource: CONFIRM_SOURCE,
        ...(version.revisionBase ? { revisionBase: version.revisionBase } : {}),
      }),
    discard: (projectId: string, sessionId: string) => call<unknown>(fetchFn, 'POST', `${session(projectId, sessionId)}/discard`, {}),
    cancel: (projectId: string, sessionId: string) =>
      call<{ status: string }>(fetchFn, 'POST', `${session(projectId, sessionId)}/cancel`, {}),
    /** Tokens and estimated cost per person in the project (editors and owners). */
    usage: (projectId: string) => call<AiUsageByPerson>(fetchFn, 'GET', `/projects/${seg(projectId)}/ai/usage`),
  };
}

export type SessionsApi = ReturnType<typeof createSessionsApi>;

/** On the browser's own `fetch`. */
export const sessionsApi: SessionsApi = createSessionsApi();
