/**
 * Requests a person sends on the socket they already opened (PROTOCOL.md "Requests on the socket"),
 * answered on the same socket with `ack` or an `error` carrying the request's id: a line comment or
 * a reply, which the session runs exactly as it runs `POST …/comments` (viewers may);
 * the socket is who is asking, with the role the project channel told the object last, so the
 * comment costs no database round trip before its event reaches every viewer. A `stop` is answered
 * by its event; only its refusal comes back here, without a request id.
 */
import type { Role } from '../../../shared/api/common.ts';
import { commentRequestOf } from '../../../shared/api/ai-sessions.ts';
import { ApiError } from '../../../shared/api-error.ts';
import { ERROR_CODES } from '../../../shared/errors.ts';
import { logError } from '../../../shared/errors-report.ts';
import type { ClientComment } from '../../../shared/protocol.ts';
import type { Actor } from '../../../shared/ai/session-rpc.ts';
import type { TurnRunner } from '../loop/turn-runner.ts';
import type { SessionCore } from '../session.ts';
import { send, type SessionConnection } from './socket-state.ts';

export function commentFromSocket(core: SessionCore, connection: SessionConnection, role: Role, frame: ClientComment, released: () => boolean): void {
  const { userId, name } = connection.state!;
  const { requestId, comment } = frame;
  // Read now: once the storage is gone there is no meta to read.
  const sessionId = core.meta?.sessionId;
  core.comment({ userId, name, role }, commentRequestOf(comment)).then(
    (data) => send(connection, { type: 'ack', requestId, data }),
    (error: unknown) => answerFailure(connection, error, { released, what: 'a comment from a socket', sessionId, requestId }),
  );
}

/** A `stop` frame (its sender already checked): the stop's answer is the turn.stopped event; only a refusal is answered here. */
export function stopFromSocket(turns: TurnRunner, connection: SessionConnection, actor: Actor, released: () => boolean, sessionId: string): void {
  turns.stop(actor).catch((error: unknown) => answerFailure(connection, error, { released, what: 'a stop from a socket', sessionId }));
}

/**
 * A socket request that failed: an ApiError is answered as its code; one the release of the storage
 * overtook (it waited while the project was deleted) as AI_SESSION_NOT_FOUND, with nothing logged;
 * anything else is logged and answered INTERNAL_ERROR (the error's own text never leaves the object).
 */
function answerFailure(connection: SessionConnection, error: unknown, at: { released: () => boolean; what: string; sessionId?: string; requestId?: string }): void {
  const ids = at.requestId === undefined ? {} : { requestId: at.requestId };
  const body = at.released() ? new ApiError('AI_SESSION_NOT_FOUND').toBody() : error instanceof ApiError ? error.toBody() : null;
  if (body) return send(connection, { type: 'error', code: body.code, message: body.message, ...(body.hints ? { hints: body.hints } : {}), ...ids });
  logError(`ai session: ${at.what} failed`, error, { sessionId: at.sessionId });
  send(connection, { type: 'error', code: 'INTERNAL_ERROR', message: ERROR_CODES.INTERNAL_ERROR.message, ...ids });
}
