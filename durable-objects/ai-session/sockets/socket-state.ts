/**
 * What the session object keeps per socket (the attachment, so it survives hibernation) and the
 * small helpers that write frames to a socket.
 */
import type { Connection } from 'partyserver';
import * as encoding from 'lib0/encoding';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import { YJS_MESSAGE, type ServerMessage, type SocketIdentity } from '../../../shared/protocol.ts';

export interface SocketState extends SocketIdentity {
  /** Set once the client has sent `hello {lastSeq}`; live events go only to subscribed sockets. */
  subscribed: boolean;
  file: string | null;
  since: string;
  /** The non-secret id of the login that opened the socket (a sign-out closes its sockets). */
  loginSession: string;
  /** When the Worker read that login's cookie (ms): a later "sign out everywhere" ends the socket. */
  readAt: number;
  /** Closed after a removal or a sign-out: frames still in flight are dropped. */
  revoked: boolean;
  /** The awareness client id this socket speaks for (the first it used), and its latest clock. */
  awarenessClientId: number | null;
  awarenessClock: number;
  /**
   * When a frame of the socket was last noted (ms), so the choice of the quietest socket
   * (admission.ts) survives hibernation; moved only when it is `heardStepMs` older, not per frame.
   * Absent on a socket that sent nothing yet (and on one opened before this field existed).
   */
  heardAt?: number;
}

export type SessionConnection = Connection<SocketState>;

/**
 * A socket that shares a cursor: its client runs the co-editor (the app's draft editor shares one
 * as it opens and removes it as it closes). Only these can show cursors, so only these get them.
 */
export function coEditing(connection: SessionConnection): boolean {
  const state = connection.state;
  return !!state && !state.revoked && state.awarenessClientId !== null;
}

export function send(connection: SessionConnection, message: ServerMessage): void {
  if (connection.readyState === WebSocket.OPEN) connection.send(JSON.stringify(message));
}

/** A frame already written as JSON (a replay frame: events/replay.ts). */
export function sendText(connection: SessionConnection, text: string): void {
  if (connection.readyState === WebSocket.OPEN) connection.send(text);
}

export function sendBinary(connection: SessionConnection, data: Uint8Array): void {
  if (connection.readyState === WebSocket.OPEN) connection.send(data);
}

export function syncUpdateFrame(update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, YJS_MESSAGE.SYNC);
  syncProtocol.writeUpdate(encoder, update);
  return encoding.toUint8Array(encoder);
}

/** Sync step 1 for `doc`: the server asks for what a client has that it lacks. */
export function syncStep1Frame(doc: Y.Doc): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, YJS_MESSAGE.SYNC);
  syncProtocol.writeSyncStep1(encoder, doc);
  return encoding.toUint8Array(encoder);
}

/** Sync step 2: what `doc` has beyond a client's state vector; null when that vector cannot be read. */
export function syncStep2Frame(doc: Y.Doc, stateVector: Uint8Array): Uint8Array | null {
  let diff: Uint8Array;
  try {
    diff = Y.encodeStateAsUpdate(doc, stateVector);
  } catch {
    return null;
  }
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, YJS_MESSAGE.SYNC);
  encoding.writeVarUint(encoder, syncProtocol.messageYjsSyncStep2);
  encoding.writeVarUint8Array(encoder, diff);
  return encoding.toUint8Array(encoder);
}
