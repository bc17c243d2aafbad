/**
 * One session's live feed as reactive state: the socket's status, the turns folded from its
 * events (turn-log.ts), who is connected, and the last refused frame. `WorkbenchSession` owns one
 * and is told of every batch of new events, to refresh what the events make stale.
 */
import type { SessionEvent } from '../../../shared/ai/events.ts';
import { isErrorCode, type ErrorBody } from '../../../shared/errors.ts';
import type { AiPresence, ClientComment, HelloMessage, PresenceEntry, ServerMessage } from '../../../shared/protocol.ts';
import { MAX_CLIENT_TEXT_FRAME_BYTES } from '../../../shared/protocol-limits.ts';
import { unreachableError } from '../local-error.ts';
import type { LiveConnection, LiveHandlers, LiveStatus } from './live-socket.ts';
import { lazyConnect } from './lazy-connect.ts';
import { EMPTY_LOG, foldEvents, type SessionLog } from './turn-log.ts';

/** What a comment sent on the socket came to: the server's `ack` data, or its error. */
export type CommentAnswer = { ok: true; data: { threadId: string; commentId: string } } | { ok: false; error: ErrorBody };

/** How long a request on the socket may wait for its answer before it is reported as not answered. */
export const SOCKET_REQUEST_TIMEOUT_MS = 15_000;

const utf8 = new TextEncoder();

export type Connect = (projectId: string, sessionId: string, handlers: LiveHandlers) => LiveConnection;

/** New events (seq above what was folded before), and whether they came in a resume replay. */
export type EventsListener = (fresh: SessionEvent[], replay: boolean) => void;

/** The Yjs side of the socket (draft-sync.ts): binary frames in, and a fresh sync on every open. */
export interface BinaryPeer {
  onBinary(data: Uint8Array): void;
  onOpen(): void;
}

/** A person's edit of the staged draft, as a version (`change.staged` with `source: edit`). */
export interface PersonEdit {
  seq: number;
  version: number;
  userId: string;
  name: string;
  keys: string[];
}

// The socket module is loaded on the first feed (lazy-connect.ts): it downloads while the session
// is looked up over HTTP, so the page's first load leaves out partysocket and the frame schemas.
let socketModule: Promise<typeof import('./live-socket.ts')> | null = null;
function loadSocket(): Promise<typeof import('./live-socket.ts')> {
  socketModule ??= import('./live-socket.ts').catch((error: unknown) => {
    socketModule = null; // a later connect tries again
    throw error;
  });
  return socketModule;
}

const defaultConnect: Connect = (projectId, sessionId, handlers) =>
  lazyConnect(() => loadSocket().then(({ connectLive, sessionSocketUrl }) => (gated) => connectLive(sessionSocketUrl(projectId, sessionId), gated)), handlers);

export class LiveFeed {
  readonly #connect: Connect;
  #log = $state.raw<SessionLog>(EMPTY_LOG);
  #replayed = $state(false);
  #status = $state<LiveStatus>('closed');
  /** How many times the socket opened: an error from before the last open may be stale. */
  #opens = $state(0);
  readonly #openWaiters = new Set<() => void>();
  #closeDetail = $state.raw<{ code: number; reason: string } | null>(null);
  #you = $state.raw<HelloMessage['you'] | null>(null);
  #presence = $state.raw<PresenceEntry[]>([]);
  #ai = $state.raw<AiPresence | null>(null);
  #edits = $state.raw<PersonEdit[]>([]);
  #peers = new Set<BinaryPeer>();
  #error = $state.raw<ErrorBody | null>(null);
  #roleNotice = $state<string | null>(null);
  #connection: LiveConnection | null = null;
  #lookingAt: string | null = null;
  /** Requests sent on the socket, waiting for the `ack` or `error` with their id. */
  readonly #requests = new Map<string, { settle: (answer: CommentAnswer) => void; timer: ReturnType<typeof setTimeout> }>();
  #nextRequest = 0;

  constructor(connect?: Connect) {
    this.#connect = connect ?? defaultConnect;
    // Start the download now, beside the session lookup that comes before the first connect; a
    // failure is reported by that connect (the feed stays closed), not here.
    if (!connect) void loadSocket().catch(() => {});
  }

  get log(): SessionLog {
    return this.#log;
  }
  /** The first resume replay has arrived: the log holds every turn, not only live ones. */
  get replayed(): boolean {
    return this.#replayed;
  }
  get status(): LiveStatus {
    return this.#status;
  }
  /** Why the socket closed for good (a 44xx code and its reason). */
  get closeDetail(): { code: number; reason: string } | null {
    return this.#closeDetail;
  }
  /** Who the server says we are (`hello`). */
  get you(): HelloMessage['you'] | null {
    return this.#you;
  }
  get presence(): PresenceEntry[] {
    return this.#presence;
  }
  /** What the AI is doing while a turn runs (the server derives it from the turn's tool events). */
  get ai(): AiPresence | null {
    return this.#ai;
  }
  /** People's edits of the draft, oldest first: each a version of its own, marked as theirs. */
  get edits(): PersonEdit[] {
    return this.#edits;
  }
  get connected(): boolean {
    return this.#status === 'open';
  }
  get opens(): number {
    return this.#opens;
  }

  /** Resolves true once the socket is open (at once if it is), false after `timeoutMs` or when it closes for good. */
  whenOpen(timeoutMs: number): Promise<boolean> {
    if (this.#status === 'open') return Promise.resolve(true);
    if (this.#status === 'closed') return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (value: boolean) => {
        clearTimeout(timer);
        this.#openWaiters.delete(wake);
        resolve(value);
      };
      const wake = () => done(this.#status === 'open');
      const timer = setTimeout(() => done(false), timeoutMs);
      this.#openWaiters.add(wake);
    });
  }

  /** Route the socket's binary frames to `peer` (the draft editor) until the returned function runs. */
  attach(peer: BinaryPeer): () => void {
    this.#peers.add(peer);
    if (this.#status === 'open') peer.onOpen();
    return () => this.#peers.delete(peer);
  }

  sendBinary(data: Uint8Array): boolean {
    return this.#connection?.sendBinary(data) ?? false;
  }
  /** Why our role changed while connected (a `role` frame), in the server's words. */
  get roleNotice(): string | null {
    return this.#roleNotice;
  }
  /** The last `error` frame (a refused stop, for one), as an API error. */
  get error(): ErrorBody | null {
    return this.#error;
  }

  /** Connect to a session (closing any earlier one) and replay its events from the start. */
  open(projectId: string, sessionId: string, onEvents: EventsListener): void {
    this.close();
    this.#connection = this.#connect(projectId, sessionId, {
      lastSeq: () => this.#log.lastSeq,
      onStatus: (status, detail) => {
        this.#status = status;
        if (status === 'open') this.#opens += 1;
        // A request's answer comes on the socket it was sent on, or not at all.
        if (status !== 'open') this.#settleUnanswered();
        // Who is here is known only while connected: a dead socket must not keep saying "also here".
        if (status !== 'open') {
          this.#presence = [];
          this.#ai = null;
        }
        if (status === 'open' || status === 'closed') for (const wake of [...this.#openWaiters]) wake();
        this.#closeDetail = detail ?? null;
        // A new connection starts with no file: say again which one we look at.
        if (status === 'open' && this.#lookingAt !== null) this.#connection?.send({ type: 'presence', file: this.#lookingAt });
        if (status === 'open') for (const peer of this.#peers) peer.onOpen();
      },
      onBinary: (data) => {
        for (const peer of this.#peers) peer.onBinary(data);
      },
      onMessage: (message) => this.#receive(message, onEvents),
    });
  }

  /** Ask the server to stop the running turn (the session's creator, who may lack the role for HTTP). */
  stop(): boolean {
    return this.#connection?.send({ type: 'stop' }) ?? false;
  }

  /**
   * A comment sent on the open socket (PROTOCOL.md "Requests on the socket"): no round trip to
   * find out who is asking. Null when the socket cannot carry it — not open, or the frame would
   * pass the text-frame cap — and the caller sends it over HTTP instead. An answer that never
   * comes (the socket closed, or the time ran out) is an error, never a second send: the comment
   * may have been stored, and the events will say so.
   */
  comment(comment: ClientComment['comment']): Promise<CommentAnswer> | null {
    const connection = this.#connection;
    if (!connection || this.#status !== 'open') return null;
    const requestId = `c${++this.#nextRequest}`;
    const request: ClientComment = { type: 'comment', requestId, comment };
    if (utf8.encode(JSON.stringify(request)).byteLength > MAX_CLIENT_TEXT_FRAME_BYTES) return null;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.#settle(requestId, unanswered()), SOCKET_REQUEST_TIMEOUT_MS);
      this.#requests.set(requestId, { settle: resolve, timer });
      if (!connection.send(request)) this.#settle(requestId, unanswered());
    });
  }

  #settle(requestId: string, answer: CommentAnswer): void {
    const request = this.#requests.get(requestId);
    if (!request) return;
    this.#requests.delete(requestId);
    clearTimeout(request.timer);
    request.settle(answer);
  }

  /** Every request still waiting: its socket went, and its answer with it. */
  #settleUnanswered(): void {
    for (const requestId of [...this.#requests.keys()]) this.#settle(requestId, unanswered());
  }

  /** Tell the others which staged file you are looking at (null: none). */
  lookAt(key: string | null): void {
    if (this.#lookingAt === key) return;
    this.#lookingAt = key;
    this.#connection?.send({ type: 'presence', file: key });
  }

  /** Disconnect and forget the session's events. */
  close(): void {
    this.#settleUnanswered();
    for (const wake of [...this.#openWaiters]) wake();
    this.#connection?.close();
    this.#connection = null;
    this.#log = EMPTY_LOG;
    this.#replayed = false;
    this.#status = 'closed';
    this.#closeDetail = null;
    this.#you = null;
    this.#presence = [];
    this.#ai = null;
    this.#edits = [];
    this.#error = null;
    this.#roleNotice = null;
  }

  #receive(message: ServerMessage, onEvents: EventsListener): void {
    switch (message.type) {
      case 'hello':
        this.#you = message.you;
        this.#error = null;
        break;
      case 'role':
        // An owner changed our role: the workbench follows at once (a demotion makes it read-only).
        if (this.#you) this.#you = { ...this.#you, role: message.role };
        this.#roleNotice = message.reason;
        break;
      case 'events': {
        // Parsed with `SessionEvent`'s schema; the inferred type is only wider than the
        // hand-written union (shared/ai/events.ts builds the union with a cast).
        const events = message.events as SessionEvent[];
        const before = this.#log.lastSeq;
        if (events.length > 0) this.#log = foldEvents(this.#log, events);
        if (message.replay && message.done) this.#replayed = true;
        const fresh = events.filter((e) => e.seq > before);
        const edits = fresh.flatMap((e) =>
          e.type === 'change.staged' && e.payload.source === 'edit' && e.actor.kind === 'user'
            ? [{ seq: e.seq, version: e.payload.version, userId: e.actor.userId, name: e.actor.name, keys: e.payload.files.map((f) => f.key) }]
            : [],
        );
        if (edits.length > 0) this.#edits = [...this.#edits, ...edits];
        if (fresh.length > 0) onEvents(fresh, message.replay);
        break;
      }
      case 'presence':
        this.#presence = message.present;
        this.#ai = message.ai ?? null;
        break;
      case 'ack':
        this.#settle(message.requestId, { ok: true, data: message.data });
        break;
      case 'error': {
        const error: ErrorBody = {
          code: isErrorCode(message.code) ? message.code : 'INTERNAL_ERROR',
          message: message.message,
          ...(message.hints ? { hints: message.hints } : {}),
        };
        // The answer to one request is that request's; any other refused frame is the feed's.
        if (message.requestId !== undefined) this.#settle(message.requestId, { ok: false, error });
        else this.#error = error;
        break;
      }
      default: {
        const never: never = message;
        throw new Error(`unknown frame ${JSON.stringify(never)}`);
      }
    }
  }
}

/** A request whose answer did not come: the socket closed, or the time ran out. */
function unanswered(): CommentAnswer {
  return { ok: false, error: unreachableError() };
}
