/**
 * Fakes of the workbench's two boundaries for unit tests: the HTTP API (a `fetch` answering the
 * `{data, error}` envelope by route) and the live socket (a `Connect` whose frames the test sends).
 * Everything between them and the state classes is the real code.
 */
import type { ClientMessage, ServerMessage } from '../../../shared/protocol.ts';
import type { FetchLike } from '../api.ts';
import type { Connect } from './live-feed.svelte.ts';
import type { LiveHandlers, LiveStatus } from './live-socket.ts';

export interface Answer {
  status?: number;
  data?: unknown;
  error?: { code: string; message: string; hints?: string[] };
}

export interface SeenRequest {
  method: string;
  /** Without the `/api` prefix, with the query. */
  path: string;
  body: unknown;
}

type Route = (body: unknown) => Answer | Promise<Answer>;

export interface FakeApi {
  fetch: FetchLike;
  seen: SeenRequest[];
  /** Answer `METHOD /path` (no `/api`) from now on; a later `on` for the same route replaces it. */
  on(route: string, answer: Answer | Route): void;
  /** The requests of one route, in order. */
  calls(route: string): SeenRequest[];
}

export function fakeApi(): FakeApi {
  const routes = new Map<string, Route>();
  const seen: SeenRequest[] = [];
  const fetch: FetchLike = async (input, init) => {
    const path = String(input).replace(/^\/api/u, '');
    const method = init?.method ?? 'GET';
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
    seen.push({ method, path, body });
    const route = routes.get(`${method} ${path}`);
    if (!route) throw new TypeError(`no fake route for ${method} ${path}`);
    const answer = await route(body);
    const status = answer.status ?? (answer.error ? 400 : 200);
    return new Response(JSON.stringify({ data: answer.data ?? null, error: answer.error ?? null }), {
      status,
      headers: { 'content-type': 'application/json' },
    });
  };
  return {
    fetch,
    seen,
    on(route, answer) {
      routes.set(route, typeof answer === 'function' ? answer : () => answer);
    },
    calls: (route) => seen.filter((r) => `${r.method} ${r.path}` === route),
  };
}

export interface FakeSocket {
  connect: Connect;
  /** Every connection opened, newest last. */
  opened: Array<{ projectId: string; sessionId: string }>;
  /** Frames the client sent on an open socket. */
  sent: ClientMessage[];
  /** Frames offered while the socket was not open (refused, as the real one does). */
  refused: ClientMessage[];
  closed: number;
  /** The server side: change the status, or send a frame. */
  status(status: LiveStatus): void;
  receive(message: ServerMessage): void;
  /** A binary (Yjs) frame from the server. */
  receiveBinary(data: Uint8Array): void;
  /** What the client says its newest seq is (asked on every connect). */
  lastSeq(): number;
}

export function fakeSocket(): FakeSocket {
  let handlers: LiveHandlers | null = null;
  let open = false;
  const socket: FakeSocket = {
    opened: [],
    sent: [],
    refused: [],
    closed: 0,
    connect: (projectId, sessionId, h) => {
      handlers = h;
      open = false;
      socket.opened.push({ projectId, sessionId });
      h.onStatus('connecting');
      return {
        send(message) {
          (open ? socket.sent : socket.refused).push(message);
          return open;
        },
        sendBinary: () => open,
        close() {
          open = false;
          socket.closed += 1;
          h.onStatus('closed');
        },
      };
    },
    status(status) {
      open = status === 'open';
      handlers?.onStatus(status);
    },
    receive(message) {
      if (!handlers) throw new Error('no connection to receive on');
      handlers.onMessage(message);
    },
    receiveBinary(data) {
      if (!handlers) throw new Error('no connection to receive on');
      handlers.onBinary?.(data);
    },
    lastSeq: () => handlers?.lastSeq() ?? -1,
  };
  return socket;
}
