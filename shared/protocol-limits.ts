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
