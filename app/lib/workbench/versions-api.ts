/**
 * Typed client for a session's versions routes (worker/routes/ai-versions.ts): the timeline,
 * comparing two versions (or one with the stored package) and restoring a checkpoint. Same
 * conventions as sessions-api.ts.
 */
import type { CompareSide, CompareView, RestoreResult, VersionsTimelineView } from '../../../shared/api/ai-versions.ts';
import { request, type FetchLike } from '../api.ts';

const seg = encodeURIComponent;

export function createVersionsApi(fetchFn: FetchLike = (input, init) => globalThis.fetch(input, init)) {
  const base = (projectId: string, sessionId: string) => `/projects/${seg(projectId)}/ai/sessions/${seg(sessionId)}/versions`;
  return {
    list: (projectId: string, sessionId: string) => request<VersionsTimelineView>(fetchFn, 'GET', base(projectId, sessionId), {}),
    compare: (projectId: string, sessionId: string, from: CompareSide, to: CompareSide) =>
      request<CompareView>(fetchFn, 'GET', `${base(projectId, sessionId)}/compare?from=${seg(String(from))}&to=${seg(String(to))}`, {}),
    restore: (projectId: string, sessionId: string, version: number) =>
      request<RestoreResult>(fetchFn, 'POST', `${base(projectId, sessionId)}/${version}/restore`, { body: {} }),
  };
}

export type VersionsApi = ReturnType<typeof createVersionsApi>;

/** On the browser's own `fetch`. */
export const versionsApi: VersionsApi = createVersionsApi();
