/**
 * One session's live feed as reactive state: the socket's status, the turns folded from its
 * events (turn-log.ts), who is connected, and the last refused frame. `WorkbenchSession` owns one
 * and is told of every batch of new events, to refresh what the events make stale.
 */
import type { SessionEvent } from '../../../shared/ai/events.ts';
import { isErrorCode, type ErrorBody } from '../../../shared/errors.ts';
import type { HelloMessage, PresenceEntry, ServerMessage } from '../../../shared/protocol.ts';
import { connectLive, sessionSocketUrl, type LiveConnection, type LiveHandlers, type LiveStatus } from './live-socket.ts';
import { EMPTY_LOG, foldEvents, type SessionLog } from './turn-log.ts';

export type Connect = (projectId: string, sessionId: string, handlers: LiveHandlers) => LiveConnection;

/** New events (seq above what was folded before), and whether they came in a resume replay. */
export type EventsListener = (fresh: SessionEvent[], replay: boolean) => void;

const defaultConnect: Connect = (projectId, sessionId, handlers) => connectLive(sessionSocketUrl(projectId, sessionId), handlers);

export class LiveFeed {
  readonly #connect: Connect;
  #log = $state.raw<SessionLog>(EMPTY_LOG);
  #replayed = $state(false);
  #status = $state<LiveStatus>('closed');
  #closeDetail = $state.raw<{ code: number; reason: string } | null>(null);
  #you = $state.raw<HelloMessage['you'] | null>(null);
  #presence = $state.raw<PresenceEntry[]>([]);
  #error = $state.raw<ErrorBody | null>(null);
  #roleNotice = $state<string | null>(null);
  #connection: LiveConnection | null = null;
  #lookingAt: string | null = null;

  constructor(connect: Connect = defaultConnect) {
    this.#connect = connect;
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
        this.#closeDetail = detail ?? null;
        // A new connection starts with no file: say again which one we look at.
        if (status === 'open' && this.#lookingAt !== null) this.#connection?.send({ type: 'presence', file: this.#lookingAt });
      },
      onMessage: (message) => this.#receive(message, onEvents),
    });
  }

  /** Ask the server to stop the running turn (the session's creator, who may lack the role for HTTP). */
  stop(): boolean {
    return this.#connection?.send({ type: 'stop' }) ?? false;
  }

  /** Tell the others which staged file you are looking at (null: none). */
  lookAt(key: string | null): void {
    if (this.#lookingAt === key) return;
    this.#lookingAt = key;
    this.#connection?.send({ type: 'presence', file: key });
  }

  /** Disconnect and forget the session's events. */
  close(): void {
    this.#connection?.close();
    this.#connection = null;
    this.#log = EMPTY_LOG;
    this.#replayed = false;
    this.#status = 'closed';
    this.#closeDetail = null;
    this.#you = null;
    this.#presence = [];
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
        if (fresh.length > 0) onEvents(fresh, message.replay);
        break;
      }
      case 'presence':
        this.#presence = message.present;
        break;
      case 'error':
        this.#error = {
          code: isErrorCode(message.code) ? message.code : 'INTERNAL_ERROR',
          message: message.message,
          ...(message.hints ? { hints: message.hints } : {}),
        };
        break;
      default: {
        const never: never = message;
        throw new Error(`unknown frame ${JSON.stringify(never)}`);
      }
    }
  }
}
