/**
 * The staged draft in the browser: one Y.Doc synced over the session's socket with y-protocols
 * (sync step 1/2 and updates, message kind 0) and an Awareness for cursors (kind 1), as
 * durable-objects/ai-session/PROTOCOL.md describes. Loaded on demand with the draft editor, so
 * the workbench's first load carries no Yjs.
 *
 * A viewer's copy never sends document updates (the server would refuse them anyway); everyone
 * shares their cursor. Each file's `Y.Text` is `files → key → text`.
 */
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import * as awarenessProtocol from 'y-protocols/awareness';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import { YJS_MESSAGE } from '../../../shared/protocol.ts';
import type { BinaryPeer } from './live-feed.svelte.ts';

const REMOTE = Symbol('remote');

export interface DraftTransport {
  sendBinary(data: Uint8Array): boolean;
  attach(peer: BinaryPeer): () => void;
}

export class DraftSync implements BinaryPeer {
  readonly doc = new Y.Doc();
  readonly awareness = new awarenessProtocol.Awareness(this.doc);
  readonly #transport: DraftTransport;
  readonly #detach: () => void;
  #canEdit: boolean;
  /** Listeners for "the first sync has arrived". */
  #synced = false;
  readonly #onSynced = new Set<() => void>();

  constructor(transport: DraftTransport, user: { name: string; color: string; colorLight: string }, canEdit: boolean) {
    this.#transport = transport;
    this.#canEdit = canEdit;
    this.awareness.setLocalStateField('user', user);
    this.doc.on('update', (update: Uint8Array, origin: unknown) => {
      if (origin === REMOTE || !this.#canEdit) return;
      this.#send(YJS_MESSAGE.SYNC, (e) => syncProtocol.writeUpdate(e, update));
    });
    this.awareness.on('update', ({ added, updated, removed }: { added: number[]; updated: number[]; removed: number[] }, origin: unknown) => {
      // The server keeps no cursors: someone new learns ours when we see them arrive.
      if (origin === REMOTE) {
        if (added.length > 0) this.#shareCursor();
        return;
      }
      // Only our own state: the server refuses a socket that speaks for another client id.
      const mine = [...added, ...updated, ...removed].filter((id) => id === this.doc.clientID);
      if (mine.length > 0) this.#send(YJS_MESSAGE.AWARENESS, (e) => encoding.writeVarUint8Array(e, awarenessProtocol.encodeAwarenessUpdate(this.awareness, mine)));
    });
    this.#detach = transport.attach(this);
  }

  get synced(): boolean {
    return this.#synced;
  }

  /** Run `listener` once the server's state has arrived (at once if it has). */
  whenSynced(listener: () => void): () => void {
    if (this.#synced) {
      listener();
      return () => {};
    }
    this.#onSynced.add(listener);
    return () => this.#onSynced.delete(listener);
  }

  /** Follow a role change (a demotion makes the copy read-only at once). */
  setCanEdit(canEdit: boolean): void {
    this.#canEdit = canEdit;
  }

  text(key: string): Y.Text | null {
    const text = this.doc.getMap<Y.Map<unknown>>('files').get(key)?.get('text');
    return text instanceof Y.Text ? text : null;
  }

  /** A (re)opened socket: ask for the server's state and share our cursor again. */
  onOpen(): void {
    this.#send(YJS_MESSAGE.SYNC, (e) => syncProtocol.writeSyncStep1(e, this.doc));
    this.#shareCursor();
  }

  #shareCursor(): void {
    if (this.awareness.getLocalState() === null) return;
    this.#send(YJS_MESSAGE.AWARENESS, (e) =>
      encoding.writeVarUint8Array(e, awarenessProtocol.encodeAwarenessUpdate(this.awareness, [this.doc.clientID])),
    );
  }

  onBinary(data: Uint8Array): void {
    const decoder = decoding.createDecoder(data);
    const kind = decoding.readVarUint(decoder);
    if (kind === YJS_MESSAGE.SYNC) {
      const reply = encoding.createEncoder();
      encoding.writeVarUint(reply, YJS_MESSAGE.SYNC);
      const type = syncProtocol.readSyncMessage(decoder, reply, this.doc, REMOTE);
      // The server's step 1 asks for our state: a viewer has nothing to add, so it does not answer.
      if (encoding.length(reply) > 1 && this.#canEdit) this.#transport.sendBinary(encoding.toUint8Array(reply));
      if (type === syncProtocol.messageYjsSyncStep2 && !this.#synced) {
        this.#synced = true;
        for (const listener of this.#onSynced) listener();
        this.#onSynced.clear();
      }
    } else if (kind === YJS_MESSAGE.AWARENESS) {
      awarenessProtocol.applyAwarenessUpdate(this.awareness, decoding.readVarUint8Array(decoder), REMOTE);
    }
  }

  destroy(): void {
    awarenessProtocol.removeAwarenessStates(this.awareness, [this.doc.clientID], 'destroy');
    this.#detach();
    this.awareness.destroy();
    this.doc.destroy();
  }

  #send(kind: number, write: (encoder: encoding.Encoder) => void): void {
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, kind);
    write(encoder);
    this.#transport.sendBinary(encoding.toUint8Array(encoder));
  }
}
