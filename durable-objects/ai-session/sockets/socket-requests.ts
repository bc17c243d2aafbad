/**
 * Requests a person sends on the socket they already opened (PROTOCOL.md "Requests on the socket"),
 * answered on the same socket with `ack` or an `error` carrying the request's id. Today one: a line
 * comment or a reply, which the session runs exactly as it runs `POST …/comments` (viewers may);
 * the socket is who is asking, with the role the project channel told the object last, so the
 * comment costs no database round trip before its event reaches every viewer.
 */
import type { Role } from '../../../shared/api/common.ts';
import { commentRequestOf } from '../../../shared/api/ai-sessions.ts';
import { ApiError } from '../../../shared/api-error.ts';
import { ERROR_CODES } from '../../../shared/errors.ts';
import { logError } from '../../../shared/errors-report.ts';
import type { ClientComment } from '../../../shared/protocol.ts';
import type { SessionCore } from '../session.ts';
import { send, type SessionConnection } from './socket-state.ts';

export function commentFromSocket(core: SessionCore, connection: SessionConnection, role: Role, frame: ClientComment): void {
  const { userId, name } = connection.state!;
  const { requestId, comment } = frame;
  core
    .comment({ userId, name, role }, commentRequestOf(comment))
    .then(
      (data) => send(connection, { type: 'ack', requestId, data }),
      (error: unknown) => {
        if (error instanceof ApiError) {
          const body = error.toBody();
          send(connection, { type: 'error', code: body.code, message: body.message, ...(body.hints ? { hints: body.hints } : {}), requestId });
          return;
        }
        // The error's own text never leaves the object: the log gets it, the person a code.
        logError('ai session: a comment from a socket failed', error, { sessionId: core.meta?.sessionId });
        send(connection, { type: 'error', code: 'INTERNAL_ERROR', message: ERROR_CODES.INTERNAL_ERROR.message, requestId });
      },
    );
}
