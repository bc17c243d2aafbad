/**
 * Typed client for keep and undo per file and per hunk (worker/routes/ai-undo.ts). Same
 * conventions as review-api.ts.
 */
import type { KeepInput, KeepMark, UndoInput, UndoResult } from '../../../shared/api/ai-undo.ts';
import { request, type FetchLike, type Method } from '../api.ts';

const seg = encodeURIComponent;

export function createUndoApi(fetchFn: FetchLike = (input, init) => globalThis.fetch(input, init)) {
  const call = <T>(method: Method, path: string, body?: unknown) => request<T>(fetchFn, method, path, body === undefined ? {} : { body });
  const base = (projectId: string, sessionId: string) => `/projects/${seg(projectId)}/ai/sessions/${seg(sessionId)}`;
  return {
    undo: (projectId: string, sessionId: string, input: UndoInput) => call<UndoResult>('POST', `${base(projectId, sessionId)}/undo`, input),
    reapply: (projectId: string, sessionId: string, undoId: string) => call<UndoResult>('POST', `${base(projectId, sessionId)}/undo/${seg(undoId)}/reapply`, {}),
    keepMarks: (projectId: string, sessionId: string) => call<KeepMark[]>('GET', `${base(projectId, sessionId)}/keep-marks`),
    keep: (projectId: string, sessionId: string, input: KeepInput) => call<KeepMark[]>('POST', `${base(projectId, sessionId)}/keep-marks`, input),
  };
}

export type UndoApi = ReturnType<typeof createUndoApi>;

export const undoApi: UndoApi = createUndoApi();
