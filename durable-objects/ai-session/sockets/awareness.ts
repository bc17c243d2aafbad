/**
 * Checks on awareness frames (cursors, selections) before the session relays them: the update is
 * decoded as y-protocols writes it (count, then clientID, clock and JSON state per entry), each
 * state is capped in UTF-8 bytes and a socket speaks only for the client id it used first (its
 * rate, like every frame's, is frame-rates.ts's). No socket may pass for the AI (ai-awareness.ts
 * speaks for it). A socket that shares a cursor runs the co-editor (the app's draft editor); only
 * those sockets receive cursors (socket-hub.ts), and one whose client removes itself (its state
 * null: the editor closed) stops being one, free to speak for the new client id of its next editor.
 */
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import {
  AI_AWARENESS,
  MAX_AWARENESS_ENTRIES,
  MAX_AWARENESS_STATE_BYTES,
  YJS_MESSAGE,
} from '../../../shared/protocol.ts';

export type AwarenessCheck =
  /** `gone`: the frame removes the client (its last state is null: the co-editor closed). */
  | { ok: true; clientId: number; clock: number; gone: boolean }
  /** `close`: the frame is abusive or unreadable and the socket is closed; otherwise only refused. */
  | { ok: false; code: 'AWARENESS_REFUSED' | 'FRAME_TOO_LARGE' | 'YJS_MALFORMED'; message: string; close: boolean };

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * A state that passes for the AI's cursor: the `ai` kind, or the AI's name (unless that is the
 * person's own name), where y-codemirror.next reads it (`user.name`).
 */
function speaksAsAi(state: unknown, ownName: string): boolean {
  if (state === null || typeof state !== 'object') return false;
  const user: unknown = (state as { user?: unknown }).user;
  if (user === null || typeof user !== 'object') return false;
  const { kind, name } = user as { kind?: unknown; name?: unknown };
  if (kind === AI_AWARENESS.user.kind) return true;
  const asAi = (text: string) => text.trim().toLowerCase() === AI_AWARENESS.user.name.toLowerCase();
  return typeof name === 'string' && asAi(name) && !asAi(ownName);
}

/**
 * Check one awareness message (the bytes after the message kind). `bound` is the client id this
 * socket already speaks for (null before its first frame); `takenByOther` says whether another
 * socket speaks for an id.
 */
export function checkAwareness(decoder: decoding.Decoder, bound: number | null, takenByOther: (clientId: number) => boolean, ownName: string): AwarenessCheck {
  let entries: Array<{ clientId: number; clock: number; state: Uint8Array }>;
  let claimsAi = false;
  let gone = false;
  try {
    const update = decoding.createDecoder(decoding.readVarUint8Array(decoder));
    const count = decoding.readVarUint(update);
    if (count === 0 || count > MAX_AWARENESS_ENTRIES) {
      return { ok: false, code: 'AWARENESS_REFUSED', message: `An awareness frame carries 1 to ${MAX_AWARENESS_ENTRIES} entries.`, close: true };
    }
    entries = [];
    for (let i = 0; i < count; i++) {
      const clientId = decoding.readVarUint(update);
      const clock = decoding.readVarUint(update);
      const state = decoding.readVarUint8Array(update);
      if (state.byteLength > MAX_AWARENESS_STATE_BYTES) {
        return { ok: false, code: 'FRAME_TOO_LARGE', message: `Awareness state is limited to ${MAX_AWARENESS_STATE_BYTES} bytes per client.`, close: true };
      }
      entries.push({ clientId, clock, state });
    }
    if (decoding.hasContent(update) || decoding.hasContent(decoder)) throw new Error('trailing bytes');
    for (const entry of entries) {
      const value: unknown = JSON.parse(utf8.decode(entry.state));
      if (value !== null && (typeof value !== 'object' || Array.isArray(value))) throw new Error('state is not an object');
      claimsAi ||= entry.clientId === AI_AWARENESS.clientId || speaksAsAi(value, ownName);
      gone = value === null;
    }
  } catch {
    return { ok: false, code: 'YJS_MALFORMED', message: 'The awareness message could not be read.', close: true };
  }
  if (claimsAi) return { ok: false, code: 'AWARENESS_REFUSED', message: 'Only the session itself speaks for the AI.', close: false };
  const clientId = bound ?? entries[0]!.clientId;
  if (entries.some((e) => e.clientId !== clientId) || (bound === null && takenByOther(clientId))) {
    return { ok: false, code: 'AWARENESS_REFUSED', message: 'A connection may only share its own cursor.', close: false };
  }
  return { ok: true, clientId, clock: Math.max(...entries.map((e) => e.clock)), gone };
}

/** An awareness frame for one client as y-protocols writes it (a null state removes the client). */
export function awarenessFrame(clientId: number, clock: number, state: unknown): Uint8Array {
  const update = encoding.createEncoder();
  encoding.writeVarUint(update, 1);
  encoding.writeVarUint(update, clientId);
  encoding.writeVarUint(update, clock);
  encoding.writeVarString(update, JSON.stringify(state));
  const frame = encoding.createEncoder();
  encoding.writeVarUint(frame, YJS_MESSAGE.AWARENESS);
  encoding.writeVarUint8Array(frame, encoding.toUint8Array(update));
  return encoding.toUint8Array(frame);
}

/** The awareness frame that tells the others a client has gone (its state becomes null). */
export function awarenessRemovalFrame(clientId: number, clock: number): Uint8Array {
  return awarenessFrame(clientId, clock + 1, null);
}
