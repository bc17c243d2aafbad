/**
 * The AI as an awareness participant in the co-editor. While a turn runs the session object holds
 * one awareness state for it (AI_AWARENESS: name "AI", a fixed colour), with the file it reads or
 * writes now and a Yjs relative-position cursor at the end of its last write, so y-codemirror.next
 * draws the AI's caret in the file a person co-edits. Sent to every socket when it changes and to
 * each socket that joins; renewed before y-protocols drops a state it has not heard of for 30 s;
 * removed (state null) when the turn ends.
 */
import * as Y from 'yjs';
import { AI_AWARENESS, type AiPresence } from '../../../shared/protocol.ts';
import { awarenessFrame } from './awareness.ts';

/** y-protocols forgets a remote state after 30 s without an update: renew at half that. */
export const AI_AWARENESS_RENEW_MS = 15_000;

/** Where a write ended: the object key and the index just after the last character it changed. */
export interface AiWrite {
  key: string;
  index: number;
}

/** The end of the last change a Y.Text event describes: after its last insert, or where it last deleted. */
function endOfDelta(delta: ReadonlyArray<{ insert?: unknown; retain?: number; delete?: number }>): number | null {
  let position = 0;
  let end: number | null = null;
  for (const op of delta) {
    if (op.retain !== undefined) position += op.retain;
    else if (op.insert !== undefined) {
      position += typeof op.insert === 'string' ? op.insert.length : 1;
      end = position;
    } else if (op.delete !== undefined) end = position;
  }
  return end;
}

/**
 * The last write in one transaction on the `files` map (observeDeep events): a text edit ends where
 * its delta last changed; a new entry (its Y.Text created in the same transaction, so it raises no
 * event of its own) ends at the end of its text.
 */
export function lastWriteOf(events: ReadonlyArray<Y.YEvent<Y.AbstractType<unknown>>>, files: Y.Map<unknown>): AiWrite | null {
  let last: AiWrite | null = null;
  for (const event of events) {
    if (event.target instanceof Y.Text) {
      const key = event.path[0];
      const index = endOfDelta(event.delta as Array<{ insert?: unknown; retain?: number; delete?: number }>);
      if (typeof key === 'string' && index !== null) last = { key, index };
    } else if (event.target === files) {
      for (const [key, change] of event.changes.keys) {
        const entry = files.get(key);
        const text = change.action !== 'delete' && entry instanceof Y.Map ? entry.get('text') : undefined;
        if (text instanceof Y.Text) last = { key, index: text.length };
      }
    }
  }
  return last;
}

interface AiState {
  user: typeof AI_AWARENESS.user;
  action: AiPresence['action'];
  file: string | null;
  /** The file of the cursor: the last one the AI wrote in this turn. */
  cursorFile: string | null;
  cursor: { anchor: unknown; head: unknown } | null;
}

export class AiAwareness {
  readonly #doc: Y.Doc;
  readonly #broadcast: (frame: Uint8Array) => void;
  /** Awareness clocks only move forward: starting from the time keeps them ahead after a restart. */
  #clock = Date.now();
  #presence: AiPresence | null = null;
  #write: AiWrite | null = null;
  #sent = false;
  /** The AI wrote in the transaction that is ending. */
  #moved = false;
  #renew: ReturnType<typeof setInterval> | null = null;

  /** `aiOrigin`: the transaction origin of the AI's stages (change-commands.ts). */
  constructor(doc: Y.Doc, aiOrigin: unknown, broadcast: (frame: Uint8Array) => void) {
    this.#doc = doc;
    this.#broadcast = broadcast;
    const files = doc.getMap<unknown>('files');
    files.observeDeep((events, transaction) => {
      if (transaction.origin !== aiOrigin) return;
      const write = lastWriteOf(events, files);
      if (!write) return;
      this.#write = write;
      this.#moved = true;
    });
    // Observers run before the document's `update` is broadcast: send the cursor after it, so a
    // client already holds the characters the cursor points at.
    doc.on('afterAllTransactions', () => {
      if (!this.#moved) return;
      this.#moved = false;
      if (this.#presence) this.#send();
    });
  }

  /** The AI's presence moved (ai-presence.ts); null when the turn ended. */
  follow(presence: AiPresence | null): void {
    this.#presence = presence;
    if (presence) {
      this.#send();
      return;
    }
    this.#write = null;
    if (this.#renew !== null) clearInterval(this.#renew);
    this.#renew = null;
    if (!this.#sent) return;
    this.#sent = false;
    this.#broadcast(awarenessFrame(AI_AWARENESS.clientId, ++this.#clock, null));
  }

  /** The AI's state for a socket that just joined, or null between turns. */
  current(): Uint8Array | null {
    return this.#sent ? awarenessFrame(AI_AWARENESS.clientId, this.#clock, this.#state()) : null;
  }

  #state(): AiState {
    const presence = this.#presence!;
    const text = this.#write ? this.#doc.getMap<Y.Map<unknown>>('files').get(this.#write.key)?.get('text') : undefined;
    let cursor: AiState['cursor'] = null;
    if (this.#write && text instanceof Y.Text) {
      // Left-associated: the caret stays after the last character the AI wrote while people type around it.
      const position = Y.relativePositionToJSON(Y.createRelativePositionFromTypeIndex(text, Math.min(this.#write.index, text.length), -1));
      cursor = { anchor: position, head: position };
    }
    return { user: AI_AWARENESS.user, action: presence.action, file: presence.file, cursorFile: cursor ? this.#write!.key : null, cursor };
  }

  #send(): void {
    this.#sent = true;
    this.#broadcast(awarenessFrame(AI_AWARENESS.clientId, ++this.#clock, this.#state()));
    this.#renew ??= setInterval(() => {
      if (this.#sent) this.#broadcast(awarenessFrame(AI_AWARENESS.clientId, ++this.#clock, this.#state()));
    }, AI_AWARENESS_RENEW_MS);
  }
}
