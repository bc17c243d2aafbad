/**
 * The session socket protocol (durable-objects/ai-session/PROTOCOL.md): text frames carry JSON
 * from these zod unions; binary frames carry y-protocols sync and awareness.
 */
import { z } from 'zod';
import { Role } from './api/common.ts';

export const PROTOCOL_VERSION = 1;

/** Close codes a client can show a reason for (4xxx are ours). */
export const CLOSE_CODES = {
  NORMAL: 1000,
  GOING_AWAY: 1001,
  PROTOCOL_ERROR: 4400,
  UNAUTHORIZED: 4401,
  FORBIDDEN: 4403,
  NOT_FOUND: 4404,
  FRAME_TOO_LARGE: 4413,
  SESSION_CLOSED: 4410,
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
});
export type HelloMessage = z.infer<typeof HelloMessage>;

export const ErrorMessage = z.object({
  type: z.literal('error'),
  code: z.string(),
  message: z.string(),
});
export type ErrorMessage = z.infer<typeof ErrorMessage>;

export const ServerMessage = z.discriminatedUnion('type', [HelloMessage, ErrorMessage]);
export type ServerMessage = z.infer<typeof ServerMessage>;

export const ClientHello = z.strictObject({ type: z.literal('hello'), lastSeq: z.number().int().min(0) });
export const ClientMessage = z.discriminatedUnion('type', [ClientHello]);
export type ClientMessage = z.infer<typeof ClientMessage>;

/** Headers the Worker sets after it has verified the user and the role; the DO trusts only these. */
export const IDENTITY_HEADERS = {
  userId: 'x-bmad-user-id',
  name: 'x-bmad-user-name',
  role: 'x-bmad-role',
  projectId: 'x-bmad-project-id',
} as const;
