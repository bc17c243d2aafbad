/**
 * Typed client for undoing one node or edge of a staged graph (POST …/graph-undo, worker/routes/
 * ai-review.ts): the version the person saw, the workflow, and the part. Same conventions as review-api.ts.
 */
import type { GraphUndoInput } from '../../../shared/api/ai-sessions.ts';
import type { GraphUndoResult } from '../../../shared/ai/session-rpc.ts';
import { request, type FetchLike } from '../api.ts';

const seg = encodeURIComponent;

export type GraphPart = GraphUndoInput['part'];

export function undoGraphPart(projectId: string, sessionId: string, input: GraphUndoInput, fetchFn: FetchLike = (i, init) => globalThis.fetch(i, init)) {
  return request<GraphUndoResult>(fetchFn, 'POST', `/projects/${seg(projectId)}/ai/sessions/${seg(sessionId)}/graph-undo`, { body: input });
}
