/**
 * The session socket protocol (durable-objects/ai-session/PROTOCOL.md): text frames carry JSON
 * from these zod unions; binary frames carry y-protocols sync and awareness.
 */
import * as z from 'zod';
import { Role } from './api/common.ts';
import { SessionEvent } from './ai/events.ts';
import { SessionStatus } from './ai/session.ts';
import { CommentInput } from './api/ai-sessions.ts';

export const PROTOCOL_VERSION = 1;

/** Close codes a client can show a reason for (4xxx are ours). */
export const CLOSE_CODES = {
  NORMAL: 1000,
  GOING_AWAY: 1001,
  /** The server failed on its side (the reason is a code, never the error's text). */
  INTERNAL_ERROR: 1011,
  PROTOCOL_ERROR: 4400,
  UNAUTHORIZED: 4401,
  FORBIDDEN: 4403,
  NOT_FOUND: 4404,
  FRAME_TOO_LARGE: 4413,
  SESSION_CLOSED: 4410,
  /** Too many awareness frames, or awareness state the server refuses to relay. */
  RATE_LIMITED: 4429,
  /** The person was removed from the project (or left it) while connected. */
  MEMBERSHIP_REVOKED: 4430,
  /** The login that opened the socket signed out (or signed out everywhere). */
  SIGNED_OUT: 4431,
  /**
   * A newer socket of the same person replaced this one, the person having MAX_SOCKETS_PER_PERSON
   * open (reason `SOCKET_REPLACED`; `TOO_MANY_SOCKETS` from servers before it), or refused at connect:
   * the session has MAX_SOCKETS_PER_SESSION (reason `SESSION_FULL`). Final in the app either way.
   */
  TOO_MANY_SOCKETS: 4432,
} as const;
export type CloseCode = (typeof CLOSE_CODES)[keyof typeof CLOSE_CODES];

export const SocketIdentity = z.object({ userId: z.string(), name: z.string(), role: Role });
export type SocketIdentity = z.infer<typeof SocketIdentity>;

export const HelloMessage = z.object({
  type: z.literal('hello'),
  protocolVersion: z.literal(PROTOCOL_VERSION),
  sessionId: z.string(),
  you: SocketIdentity,
  /** The newest event seq the session has; a client resumes by sending its own. */
  lastSeq: z.number().int().min(0),
  status: SessionStatus,
  /** Whether this socket may write to the Yjs document (editors and owners). */
  canEdit: z.boolean(),
});
export type HelloMessage = z.infer<typeof HelloMessage>;

/**
 * The person's role on the project changed while connected (an owner promoted or demoted them):
 * from this frame on, the socket's writes are checked against `role`.
 */
export const RoleMessage = z.object({
  type: z.literal('role'),
  role: Role,
  canEdit: z.boolean(),
  /** A plain sentence for the person. */
  reason: z.string(),
});
export type RoleMessage = z.infer<typeof RoleMessage>;

/**
 * Sequenced events. Live events arrive one frame each (`replay: false`); a resume after
 * `hello {lastSeq}` arrives as one batch (`replay: true`), split over several frames only when it
 * is larger than MAX_SERVER_FRAME_BYTES, the last one with `done: true`.
 */
export const EventsMessage = z.object({
  type: z.literal('events'),
  events: z.array(SessionEvent),
  replay: z.boolean(),
  done: z.boolean(),
});
export type EventsMessage = z.infer<typeof EventsMessage>;

export const PresenceEntry = z.object({
  connectionId: z.string(),
  userId: z.string(),
  name: z.string(),
  role: Role,
  /** The object key the person is looking at, if any. */
  file: z.string().nullable(),
  since: z.string(),
});
export type PresenceEntry = z.infer<typeof PresenceEntry>;

/**
 * The AI while a turn runs: what it is doing and the object key it reads or writes (null when the
 * tool names none). Derived by the server from the turn's events; null between turns.
 */
export const AiPresence = z.object({
  action: z.enum(['thinking', 'reading', 'writing', 'validating']),
  file: z.string().nullable(),
  tool: z.string().nullable(),
});
export type AiPresence = z.infer<typeof AiPresence>;

/** Everyone connected, sent to everyone whenever someone joins, leaves or changes file, or the AI moves. */
export const PresenceMessage = z.object({ type: z.literal('presence'), present: z.array(PresenceEntry), ai: AiPresence.nullable().optional() });
export type PresenceMessage = z.infer<typeof PresenceMessage>;

export const ErrorMessage = z.object({
  type: z.literal('error'),
  code: z.string(),
  message: z.string(),
  hints: z.array(z.string()).optional(),
  /** The refused request's id, when the error answers one (`comment`). */
  requestId: z.string().optional(),
});
export type ErrorMessage = z.infer<typeof ErrorMessage>;

/** A request done: its `requestId` and what the same HTTP route answers in `data`. */
export const AckMessage = z.object({
  type: z.literal('ack'),
  requestId: z.string(),
  data: z.object({ threadId: z.string(), commentId: z.string() }),
});
export type AckMessage = z.infer<typeof AckMessage>;

export const ServerMessage = z.discriminatedUnion('type', [HelloMessage, RoleMessage, EventsMessage, PresenceMessage, ErrorMessage, AckMessage]);
export type ServerMessage = z.infer<typeof ServerMessage>;

export const ClientHello = z.strictObject({ type: z.literal('hello'), lastSeq: z.number().int().min(0) });
/** Tell the others which file you are looking at (null: none). */
export const ClientPresence = z.strictObject({ type: z.literal('presence'), file: z.string().max(1024).nullable() });
/** Stop the AI's running turn (editors, or the session's creator); refused with an `error` frame otherwise. */
export const ClientStop = z.strictObject({ type: z.literal('stop') });
/**
 * A line comment or a reply, as `POST …/comments` takes it (members, viewers included), sent on the
 * socket the person already opened: no round trip to find out who is asking. Answered with `ack`
 * or an `error`, each carrying the `requestId`. A comment whose frame would pass
 * MAX_CLIENT_TEXT_FRAME_BYTES goes over HTTP instead.
 */
export const ClientComment = z.strictObject({ type: z.literal('comment'), requestId: z.string().min(1).max(64), comment: CommentInput });
export type ClientComment = z.infer<typeof ClientComment>;
export const ClientMessage = z.discriminatedUnion('type', [ClientHello, ClientPresence, ClientStop, ClientComment]);
export type ClientMessage = z.infer<typeof ClientMessage>;

/** Text frames from a client above this close the socket with FRAME_TOO_LARGE (zod-free: protocol-limits.ts). */
export { MAX_CLIENT_TEXT_FRAME_BYTES } from './protocol-limits.ts';
/** The caps on open sockets and the presence interval (protocol-limits.ts). */
export { MAX_SOCKETS_PER_PERSON, MAX_SOCKETS_PER_SESSION, PRESENCE_INTERVAL_MS } from './protocol-limits.ts';
/** Binary (Yjs) frames from a client above this close the socket with FRAME_TOO_LARGE. */
export const MAX_CLIENT_BINARY_FRAME_BYTES = 512 * 1024;
/** Server frames stay below this (UTF-8 bytes); a larger replay is split. */
export const MAX_SERVER_FRAME_BYTES = 256 * 1024;

/** One client's awareness state (its JSON, in UTF-8 bytes) above this is refused. */
export const MAX_AWARENESS_STATE_BYTES = 4 * 1024;
/** Entries in one awareness frame above this are refused (a socket speaks only for its own client id). */
export const MAX_AWARENESS_ENTRIES = 4;
/** Awareness frames per socket: a bucket of this many, refilled at AWARENESS_REFILL_PER_SECOND. */
export const AWARENESS_BURST = 60;
export const AWARENESS_REFILL_PER_SECOND = 20;

/**
 * Every kind of frame a client sends has a budget per socket: a token bucket of `burst` frames,
 * refilled at `perMinute`; a socket that spends it is closed with 4429 RATE_LIMITED. Sized for
 * what the Workbench sends (app/lib/workbench/): one `hello` per (re)connect, and each reconnect is
 * a new socket; a sync step 1 on connect and each time a draft editor opens ("Edit draft" / "Watch
 * live draft"); `presence` when the person opens a file; Yjs updates as they type. A hello replays
 * the whole event log and a step 1 with an empty state vector answers the whole draft, so those
 * two are rare by design.
 */
export const FRAME_RATES = {
  hello: { burst: 4, perMinute: 4 },
  syncStep1: { burst: 10, perMinute: 10 },
  presence: { burst: 30, perMinute: 300 },
  awareness: { burst: AWARENESS_BURST, perMinute: AWARENESS_REFILL_PER_SECOND * 60 },
  /** Yjs sync step 2 and updates: keystrokes (a held key repeats about 30 times a second). */
  update: { burst: 300, perMinute: 3_600 },
  /** `stop` and frames that cannot be read (a `comment` is held to its sender's comment rate instead). */
  other: { burst: 60, perMinute: 60 },
} as const satisfies Record<string, { burst: number; perMinute: number }>;
export type FrameKind = keyof typeof FRAME_RATES;

/**
 * The two expensive kinds also have a budget per person on the session, which every socket of
 * theirs draws on: reconnecting gives a socket a fresh budget of its own but never refills this
 * one. Sized for MAX_SOCKETS_PER_PERSON tabs opening, then all reconnecting after a network blip,
 * then a few reconnects a minute.
 */
export const PERSON_FRAME_RATES = {
  hello: { burst: 16, perMinute: 8 },
  syncStep1: { burst: 30, perMinute: 20 },
} as const satisfies Partial<Record<FrameKind, { burst: number; perMinute: number }>>;

const utf8 = new TextEncoder();
/** The size of a string on the wire: caps are in bytes, and `string.length` counts UTF-16 units. */
export function utf8Bytes(text: string): number {
  return utf8.encode(text).byteLength;
}

/**
 * The AI as an awareness participant in the co-editor (sockets/ai-awareness.ts): the session object
 * speaks for it under a client id no Yjs client can have (Y.Doc ids are 32-bit), and refuses any
 * socket whose state claims it (that id, the `ai` kind or the name).
 */
export const AI_AWARENESS = {
  clientId: 2 ** 32,
  user: { name: 'AI', color: '#6d28d9', colorLight: '#6d28d933', kind: 'ai' },
} as const;

/** y-protocols message kinds on binary frames (the y-websocket convention). */
export const YJS_MESSAGE = { SYNC: 0, AWARENESS: 1 } as const;

/** Headers the Worker sets after it has verified the user and the role; the DO trusts only these. */
export const IDENTITY_HEADERS = {
  userId: 'x-bmad-user-id',
  name: 'x-bmad-user-name',
  role: 'x-bmad-role',
  projectId: 'x-bmad-project-id',
  /** When the Worker read the role (ms since epoch): a membership change told later wins over it. */
  roleReadAt: 'x-bmad-role-read-at',
  /** A non-secret id of the login (cookie) that opened the socket, so signing out closes its sockets. */
  loginSession: 'x-bmad-login-session',
  /** When that login's cookie expires (ms since epoch): the object keeps the login until then at most (known-callers.ts). */
  loginExpiresAt: 'x-bmad-login-expires-at',
  /** The interface language the person chose, when they chose one (their messages' turns answer in it). */
  locale: 'x-bmad-user-locale',
} as const;
