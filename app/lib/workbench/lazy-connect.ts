/**
 * A live connection whose code arrives later: the socket module (partysocket and the zod schemas
 * every server frame is checked with, `live-socket.ts`) is not part of the Workbench's first load;
 * it downloads while the page asks which session is active, and the connection made before it
 * arrives behaves as a socket still connecting.
 */
import type { LiveConnection, LiveHandlers } from './live-socket.ts';

/** Opens the real connection once its module is loaded. */
export type LoadConnect = () => Promise<(handlers: LiveHandlers) => LiveConnection>;

/**
 * A connection now, backed by the one `load` opens. Until then nothing can be sent (false, as while
 * disconnected: the resume handshake replays what was missed). Closed before that, the real socket
 * is closed as soon as it exists and tells the handlers nothing: they may already serve the next
 * connection. A module that fails to load leaves the connection closed.
 */
export function lazyConnect(load: LoadConnect, handlers: LiveHandlers): LiveConnection {
  let closed = false;
  let real: LiveConnection | null = null;
  // Once closed by the caller, the real connection's calls (its own final 'closed' included) are dropped.
  const gated: LiveHandlers = {
    onMessage: (message) => {
      if (!closed) handlers.onMessage(message);
    },
    onStatus: (status, detail) => {
      if (!closed) handlers.onStatus(status, detail);
    },
    lastSeq: () => handlers.lastSeq(),
    onBinary: (data) => {
      if (!closed) handlers.onBinary?.(data);
    },
  };
  handlers.onStatus('connecting');
  load().then(
    (connect) => {
      if (closed) return;
      real = connect(gated);
    },
    () => {
      if (!closed) handlers.onStatus('closed');
    },
  );
  return {
    send: (message) => real?.send(message) ?? false,
    sendBinary: (data) => real?.sendBinary(data) ?? false,
    close() {
      if (closed) return;
      closed = true;
      real?.close();
      handlers.onStatus('closed');
    },
  };
}
