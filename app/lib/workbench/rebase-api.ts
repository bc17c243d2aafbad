/**
 * Typed client for moving a session's draft onto a new baseline (worker/routes/ai-rebase.ts):
 * the rebase itself and a person's resolution of one conflicted file. Same conventions as sessions-api.ts.
 */
import type { RebaseResult, ResolveRebaseInput, ResolveRebaseResult } from '../../../shared/api/ai-rebase.ts';
import { request, type FetchLike } from '../api.ts';

const seg = encodeURIComponent;

export function createRebaseApi(fetchFn: FetchLike = (input, init) => globalThis.fetch(input, init)) {
  const base = (projectId: string, sessionId: string) => `/projects/${seg(projectId)}/ai/sessions/${seg(sessionId)}/rebase`;
  return {
    rebase: (projectId: string, sessionId: string) => request<RebaseResult>(fetchFn, 'POST', base(projectId, sessionId), { body: {} }),
    resolve: (projectId: string, sessionId: string, input: ResolveRebaseInput) =>
      request<ResolveRebaseResult>(fetchFn, 'POST', `${base(projectId, sessionId)}/resolve`, { body: input }),
  };
}

export type RebaseApi = ReturnType<typeof createRebaseApi>;

export const rebaseApi: RebaseApi = createRebaseApi();
