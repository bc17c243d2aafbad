/**
 * The socket protocol's size caps that the app needs at first paint, without the frame schemas
 * (shared/protocol.ts re-exports them): the Workbench decides from these whether a request fits
 * a frame before it loads anything else.
 */

/** Text frames from a client above this close the socket with FRAME_TOO_LARGE. */
export const MAX_CLIENT_TEXT_FRAME_BYTES = 16 * 1024;

/**
 * The keep-alive (PROTOCOL.md "Keep-alive"): a client sends exactly this text, and the platform
 * answers exactly `PONG_FRAME` for the session object without waking it or counting it.
 */
export const PING_FRAME = '{"type":"ping"}';
export const PONG_FRAME = '{"type":"pong"}';

/**
 * Open sockets one person may hold on one session (SECURITY.md "Live channel"): a few tabs and
 * devices. One more replaces the person's socket heard from longest ago, which is closed with 4432
 * (reason `SOCKET_REPLACED`; durable-objects/ai-session/sockets/admission.ts says why).
 */
export const MAX_SOCKETS_PER_PERSON = 8;
/** Open sockets on one session, everyone together; one more is closed with 4432 (reason `SESSION_FULL`). */
export const MAX_SOCKETS_PER_SESSION = 200;
/**
 * The `presence` list goes out at most once per this many milliseconds per session: a change in a
 * quiet session goes out at once, and the changes that follow within the interval go out together
 * at its end (the last state always does), so a burst of connects or file changes costs one send
 * per socket per interval, never one per socket per change.
 */
export const PRESENCE_INTERVAL_MS = 250;
