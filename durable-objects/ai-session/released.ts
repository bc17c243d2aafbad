/**
 * What a released session object (its retention period over, or its project deleted) answers a
 * request that still reaches it. It is answered before partyserver sets the object up: that set-up
 * (`onStart`, and partyserver's own record of the object's name) would write the storage again.
 * A request already running when the storage went answers the same (`outcomeUnlessReleased`).
 */
import { CLOSE_CODES } from '../../shared/protocol.ts';
import { fail, outcomeOf, type Outcome } from '../../shared/ai/outcome.ts';

/** A socket upgrade is accepted only to be closed at once with "not found" (what the app shows for a gone session); anything else is a 404. */
export function notFoundAnswer(request: Request): Response {
  if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') return new Response(null, { status: 404 });
  const { 0: client, 1: server } = new WebSocketPair();
  server.accept();
  server.close(CLOSE_CODES.NOT_FOUND, 'AI_SESSION_NOT_FOUND');
  return new Response(null, { status: 101, webSocket: client });
}

/**
 * outcomeOf for an RPC body that may outlive the storage: one that awaited (a D1 read, a batch, a
 * turn's stop) while the object was released answers "not found", as any later request does, rather
 * than what its next touch of a dropped table throws ("no such table", an INTERNAL_ERROR and an error
 * log). An error thrown while the storage is still there propagates as before.
 */
export async function outcomeUnlessReleased<T>(body: () => Promise<T> | T, released: () => boolean): Promise<Outcome<T>> {
  try {
    const outcome = await outcomeOf(body);
    return released() ? fail('AI_SESSION_NOT_FOUND') : outcome;
  } catch (error) {
    if (released()) return fail('AI_SESSION_NOT_FOUND');
    throw error;
  }
}
