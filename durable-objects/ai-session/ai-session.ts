/**
 * One Durable Object per AI session (addressed by `idFromName(sessionId)`). A thin class: it
 * accepts hibernatable sockets whose identity the Worker has verified, and delegates to the
 * collaborators beside it. The working-copy overlay, event log and tool loop arrive in the
 * issues that follow; today it greets each socket and answers frames it does not know.
 */
import { Server, type Connection, type ConnectionContext, type WSMessage } from 'partyserver';
import {
  CLOSE_CODES,
  ClientMessage,
  IDENTITY_HEADERS,
  PROTOCOL_VERSION,
  SocketIdentity,
  type ServerMessage,
} from '../../shared/protocol.ts';

/** Text frames above this are refused (big contents travel by reference over HTTP). */
export const MAX_FRAME_BYTES = 64 * 1024;

function send(connection: Connection, message: ServerMessage): void {
  if (connection.readyState === WebSocket.OPEN) connection.send(JSON.stringify(message));
}

export class AiSessionDurableObject extends Server<Cloudflare.Env> {
  static override options = { hibernate: true };

  override onConnect(connection: Connection<SocketIdentity>, ctx: ConnectionContext): void {
    const headers = ctx.request.headers;
    const identity = SocketIdentity.safeParse({
      userId: headers.get(IDENTITY_HEADERS.userId),
      name: headers.get(IDENTITY_HEADERS.name),
      role: headers.get(IDENTITY_HEADERS.role),
    });
    if (!identity.success) {
      connection.close(CLOSE_CODES.UNAUTHORIZED, 'UNAUTHORIZED');
      return;
    }
    // Kept in the socket attachment so it survives hibernation.
    connection.setState(identity.data);
    send(connection, {
      type: 'hello',
      protocolVersion: PROTOCOL_VERSION,
      sessionId: this.name,
      you: identity.data,
      lastSeq: 0,
    });
  }

  override onMessage(connection: Connection<SocketIdentity>, message: WSMessage): void {
    if (typeof message !== 'string') {
      send(connection, { type: 'error', code: 'BAD_REQUEST', message: 'Binary frames are not accepted yet.' });
      return;
    }
    if (message.length > MAX_FRAME_BYTES) {
      connection.close(CLOSE_CODES.FRAME_TOO_LARGE, 'FRAME_TOO_LARGE');
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(message);
    } catch {
      send(connection, { type: 'error', code: 'INVALID_JSON', message: 'A text frame must be one JSON object.' });
      return;
    }
    const parsed = ClientMessage.safeParse(value);
    if (!parsed.success) {
      send(connection, { type: 'error', code: 'BAD_REQUEST', message: 'Unknown or malformed frame.' });
      return;
    }
    // `hello {lastSeq}`: the event log arrives with the session issue; nothing to replay yet.
  }
}
