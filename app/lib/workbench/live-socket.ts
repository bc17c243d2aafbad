/**
 * The workbench's live channel to a session (durable-objects/ai-session/PROTOCOL.md): a
 * reconnecting WebSocket that says `hello {lastSeq}` on every (re)connect, so each reconnect gets
 * exactly the events it missed, then live ones. Text frames are parsed with the shared
 * `ServerMessage` schema; binary frames (Yjs sync and awareness) go to `onBinary` as bytes for the
 * draft editor (draft-sync.ts), which answers with `sendBinary`.
 *
 * Reconnection is partysocket's `ReconnectingWebSocket` (a dependency already); this wrapper adds
 * the protocol: the resume handshake, the frames as values, and which close codes are final.
 *
 * A socket can die without a close (the network went, a laptop slept): the browser keeps calling it
 * open and nothing arrives. So the wrapper notices it: the browser's `offline` event says
 * "reconnecting" at once, `online` reconnects without waiting out the back-off, and a keep-alive
 * sends `{"type":"ping"}` (the server answers `{"type":"pong"}` without waking, PROTOCOL.md
 * "Keep-alive") whenever the socket was quiet for an interval; when nothing at all comes back
 * within the next interval, the socket is taken for dead and replaced.
 */
import ReconnectingWebSocket from 'partysocket/ws';
import { CLOSE_CODES, ServerMessage, type ClientMessage } from '../../../shared/protocol.ts';
import { MAX_SOCKETS_PER_PERSON, MAX_SOCKETS_PER_SESSION, PING_FRAME, PONG_FRAME } from '../../../shared/protocol-limits.ts';
import { t } from '../i18n/i18n.svelte.ts';
import '../i18n/workbench-words.ts';

export type LiveStatus = 'connecting' | 'open' | 'reconnecting' | 'closed';

/** How long a socket may stay quiet before it is pinged, and how long the ping may go unanswered. */
export const KEEP_ALIVE_MS = 10_000;
/** The close code of a socket given up for dead (no answer to the keep-alive); not final. */
export const DEAD_SOCKET_CODE = 4000;

export interface LiveOptions {
  keepAliveMs?: number;
  /** The WebSocket class (tests pass a fake). */
  WebSocket?: unknown;
  /** Where `online` and `offline` are heard (tests pass their own target). */
  network?: Pick<EventTarget, 'addEventListener' | 'removeEventListener'> | null;
}

export interface LiveHandlers {
  /** Every text frame the server sent that parses as a `ServerMessage`. */
  onMessage(message: ServerMessage): void;
  onStatus(status: LiveStatus, detail?: { code: number; reason: string }): void;
  /** The newest seq the caller has applied, asked for on every (re)connect. */
  lastSeq(): number;
  /** A binary frame (Yjs sync or awareness, PROTOCOL.md "Binary frames"). */
  onBinary?(data: Uint8Array): void;
}

export interface LiveConnection {
  send(message: ClientMessage): boolean;
  /** A Yjs frame; false while disconnected (the draft resyncs on the next open). */
  sendBinary(data: Uint8Array): boolean;
  close(): void;
}

/**
 * Close codes after which reconnecting cannot help: the session is gone or refused us, or we
 * sent something the server cannot read (shared/protocol.ts CLOSE_CODES, all 44xx).
 */
const FINAL_CLOSE_CODES: ReadonlySet<number> = new Set([
  CLOSE_CODES.PROTOCOL_ERROR,
  CLOSE_CODES.UNAUTHORIZED,
  CLOSE_CODES.FORBIDDEN,
  CLOSE_CODES.NOT_FOUND,
  CLOSE_CODES.FRAME_TOO_LARGE,
  CLOSE_CODES.SESSION_CLOSED,
  CLOSE_CODES.RATE_LIMITED,
  CLOSE_CODES.MEMBERSHIP_REVOKED,
  CLOSE_CODES.SIGNED_OUT,
  // Refused at connect for too many open sockets (reconnecting would be refused the same way), or
  // replaced by a newer socket of the same person (SOCKET_REPLACED): reconnecting would replace
  // that one in turn, and two tabs would take the place from each other for ever.
  CLOSE_CODES.TOO_MANY_SOCKETS,
]);

/**
 * Why the server closed the socket for good, in plain words in the interface language (null for a
 * code without one). `reason` tells the three cases of 4432 apart (the person's tabs, the session's
 * total, this tab replaced by a newer one of the same person).
 */
export function closeExplanation(code: number, reason = ''): string | null {
  switch (code) {
    case CLOSE_CODES.TOO_MANY_SOCKETS:
      if (reason === 'SOCKET_REPLACED') return t('workbench.closeReasons.socketReplaced', { max: MAX_SOCKETS_PER_PERSON });
      return reason === 'SESSION_FULL' ? t('workbench.closeReasons.sessionFull', { max: MAX_SOCKETS_PER_SESSION }) : t('workbench.closeReasons.tooManySockets', { max: MAX_SOCKETS_PER_PERSON });
    case CLOSE_CODES.MEMBERSHIP_REVOKED:
      return t('workbench.closeReasons.membershipRevoked');
    case CLOSE_CODES.SIGNED_OUT:
      return t('workbench.closeReasons.signedOut');
    case CLOSE_CODES.RATE_LIMITED:
      return t('workbench.closeReasons.rateLimited');
    case CLOSE_CODES.FRAME_TOO_LARGE:
      return t('workbench.closeReasons.frameTooLarge');
    case CLOSE_CODES.SESSION_CLOSED:
      return t('workbench.closeReasons.sessionClosed');
    case CLOSE_CODES.NOT_FOUND:
      return t('workbench.closeReasons.notFound');
    case CLOSE_CODES.UNAUTHORIZED:
      return t('workbench.closeReasons.unauthorized');
    default:
      return null;
  }
}

/** The socket address of a session, on this page's own origin (the cookie authenticates it). */
export function sessionSocketUrl(projectId: string, sessionId: string, location: Pick<Location, 'protocol' | 'host'> = window.location): string {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${location.host}/api/projects/${encodeURIComponent(projectId)}/ai/sessions/${encodeURIComponent(sessionId)}/ws`;
}

export function connectLive(url: string, handlers: LiveHandlers, options: LiveOptions = {}): LiveConnection {
  let closedByUs = false;
  /** Closed with a final code: nothing reconnects it. */
  let ended = false;
  const keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_MS;
  const network = options.network === undefined ? (typeof window === 'undefined' ? null : window) : options.network;
  const socket = new ReconnectingWebSocket(url, undefined, {
    ...(options.WebSocket ? { WebSocket: options.WebSocket } : {}),
    // A dropped socket comes back quickly, then backs off to 10 s.
    minReconnectionDelay: 500,
    maxReconnectionDelay: 10_000,
    reconnectionDelayGrowFactor: 2,
    connectionTimeout: 8_000,
    // Nothing is queued while disconnected: the resume handshake replays what was missed, and a
    // stale `stop` or `presence` must not be sent late.
    maxEnqueuedMessages: 0,
    shouldReconnectOnClose: (event) => !FINAL_CLOSE_CODES.has(event.code),
  });
  socket.binaryType = 'arraybuffer';
  handlers.onStatus('connecting');

  // The keep-alive: `heard` is set by every frame; a quiet interval sends a ping, and a second
  // interval with nothing heard gives the socket up (partysocket's reconnect closes and replaces it).
  let heard = true;
  let pinged = false;
  const keepAlive = setInterval(() => {
    if (socket.readyState !== socket.OPEN) return;
    if (heard) {
      heard = false;
      pinged = false;
      return;
    }
    if (!pinged) {
      pinged = true;
      socket.send(PING_FRAME);
      return;
    }
    pinged = false;
    heard = true;
    socket.reconnect(DEAD_SOCKET_CODE, 'no answer to the keep-alive');
  }, keepAliveMs);

  // The browser knows before the socket does: offline says so at once, online reconnects now.
  const onOffline = () => {
    if (!closedByUs && socket.readyState === socket.OPEN) handlers.onStatus('reconnecting');
  };
  const onOnline = () => {
    if (closedByUs || ended) return;
    heard = true;
    pinged = false;
    socket.reconnect(DEAD_SOCKET_CODE, 'back online');
  };
  network?.addEventListener('offline', onOffline);
  network?.addEventListener('online', onOnline);

  socket.addEventListener('open', () => {
    heard = true;
    pinged = false;
    handlers.onStatus('open');
    socket.send(JSON.stringify({ type: 'hello', lastSeq: handlers.lastSeq() } satisfies ClientMessage));
  });
  socket.addEventListener('message', (event) => {
    heard = true;
    if (event.data === PONG_FRAME) return;
    if (typeof event.data !== 'string') {
      if (event.data instanceof ArrayBuffer) handlers.onBinary?.(new Uint8Array(event.data));
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(event.data);
    } catch {
      return;
    }
    const parsed = ServerMessage.safeParse(value);
    if (parsed.success) handlers.onMessage(parsed.data);
  });
  socket.addEventListener('close', (event) => {
    if (closedByUs) return;
    const final = FINAL_CLOSE_CODES.has(event.code);
    if (final) {
      ended = true;
      clearInterval(keepAlive);
    }
    handlers.onStatus(final ? 'closed' : 'reconnecting', { code: event.code, reason: event.reason });
  });

  return {
    send(message) {
      if (socket.readyState !== socket.OPEN) return false;
      return socket.send(JSON.stringify(message));
    },
    sendBinary(data) {
      if (socket.readyState !== socket.OPEN) return false;
      return socket.send(data as Uint8Array<ArrayBuffer>);
    },
    close() {
      closedByUs = true;
      clearInterval(keepAlive);
      network?.removeEventListener('offline', onOffline);
      network?.removeEventListener('online', onOnline);
      socket.close(CLOSE_CODES.NORMAL);
      handlers.onStatus('closed');
    },
  };
}
