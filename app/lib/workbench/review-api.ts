/**
 * Typed client for a session's review routes (worker/routes/ai-review.ts): comments and replies,
 * resolve and reopen, approve, request changes, withdraw, the owner's dismiss and override, and
 * "address the open comments" (the AI's next turn).
 * Same conventions as sessions-api.ts.
 */
import type { Approval, ApprovalOverride } from '../../../shared/api/ai-session-views.ts';
import { request, type FetchLike, type Method } from '../api.ts';

const seg = encodeURIComponent;

/** The version a reviewer saw: approvals and requests are bound to its content hash. */
export interface ReviewedVersion {
  changeSetId: string;
  contentHash: string;
}

export interface NewComment {
  objectKey: string;
  line: number | null;
  lineEnd?: number | null;
  body: string;
  threadId?: string;
}

export function createReviewApi(fetchFn: FetchLike = (input, init) => globalThis.fetch(input, init)) {
  const call = <T>(method: Method, path: string, body?: unknown) => request<T>(fetchFn, method, path, body === undefined ? {} : { body });
  const base = (projectId: string, sessionId: string) => `/projects/${seg(projectId)}/ai/sessions/${seg(sessionId)}`;
  return {
    comment: (projectId: string, sessionId: string, input: NewComment) =>
      call<{ threadId: string; commentId: string }>('POST', `${base(projectId, sessionId)}/comments`, input),
    setThread: (projectId: string, sessionId: string, threadId: string, status: 'resolved' | 'open') =>
      call<{ threadId: string; status: string }>('POST', `${base(projectId, sessionId)}/threads/${seg(threadId)}/${status === 'resolved' ? 'resolve' : 'reopen'}`, {}),
    approve: (projectId: string, sessionId: string, version: ReviewedVersion) =>
      call<{ changeSetId: string; approvals: Approval[] }>('POST', `${base(projectId, sessionId)}/approvals`, version),
    withdrawApproval: (projectId: string, sessionId: string) => call<{ withdrawn: true }>('DELETE', `${base(projectId, sessionId)}/approvals/me`),
    requestChanges: (projectId: string, sessionId: string, version: ReviewedVersion, body: string) =>
      call<{ requestId: string }>('POST', `${base(projectId, sessionId)}/change-requests`, { ...version, body }),
    withdrawRequest: (projectId: string, sessionId: string) => call<{ withdrawn: number }>('DELETE', `${base(projectId, sessionId)}/change-requests/me`),
    dismissRequest: (projectId: string, sessionId: string, requestId: string, reason: string) =>
      call<{ dismissed: true }>('POST', `${base(projectId, sessionId)}/change-requests/${seg(requestId)}/dismiss`, { reason }),
    addressComments: (projectId: string, sessionId: string) =>
      call<{ turnId: string; seq: number; threadIds: string[] }>('POST', `${base(projectId, sessionId)}/address-comments`, {}),
    override: (projectId: string, sessionId: string, version: ReviewedVersion, reason: string) =>
      call<ApprovalOverride>('POST', `${base(projectId, sessionId)}/approvals/override`, { ...version, reason }),
  };
}

export type ReviewApi = ReturnType<typeof createReviewApi>;

export const reviewApi: ReviewApi = createReviewApi();
