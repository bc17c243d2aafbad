/**
 * What a released session object (its retention period over, or its project deleted) answers a
 * request that still reaches it. It is answered before partyserver sets the object up: that set-up
 * (`onStart`, and partyserver's own record of the object's name) would write the storage again.
 */
import { CLOSE_CODES } from '../../shared/protocol.ts';

/** A socket upgrade is accepted only to be closed at once with "not found" (what the app shows for a gone session); anything else is a 404. */
export function notFoundAnswer(request: Request): Response {
  if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') return new Response(null, { status: 404 });
  const { 0: client, 1: server } = new WebSocketPair();
  server.accept();
  server.close(CLOSE_CODES.NOT_FOUND, 'AI_SESSION_NOT_FOUND');
  return new Response(null, { status: 101, webSocket: client });
}
