/**
 * The working-copy overlay as one Y.Doc: `files` maps an object key to an entry map holding the
 * staged text (`Y.Text`), whether the object is deleted, and the baseline revision/hash it was
 * staged on. The server's own updates (stage, rebase, clear) are appended to SQLite before listeners
 * (the broadcast) see them. A person's keystroke from a socket is relayed first and appended
 * behind it (write-behind): a storage write before the relay would make the relayed frame wait for
 * the write to commit (the output gate), so keystrokes wait in memory until `flush()` — which the
 * session object calls a moment later (EDIT_FLUSH_MS), and which every server update, snapshot
 * and stored event runs first — and a burst of keystrokes is one commit. The log is compacted into one snapshot
 * once it grows.
 *
 * People co-edit through Yjs, but only the *text* of entries that already exist: an update from a
 * socket is checked by what it names (co-edit-check.ts: its structs and the items they touch, never
 * the whole document) and refused when it is malformed, adds or removes entries, touches their
 * metadata, writes into a deleted entry, creates other shared types, or grows a text past the size
 * cap. A refused update leaves the document untouched.
 */
import * as Y from 'yjs';
import type { OverlayEntry } from '../../../shared/ai/overlay.ts';
import { toArrayBuffer } from '../storage.ts';
import { checkCoEdit } from './co-edit-check.ts';

const FILES = 'files';
/** Staged text larger than this is refused (the changeSet contract uses the same cap). */
export const MAX_ENTRY_CHARS = 512 * 1024;
/** Compact the update log into one snapshot after this many rows at least… */
const COMPACT_AFTER = 200;
/**
 * …once the rows since the last snapshot weigh as much as it did, or after this many rows at most.
 * A snapshot encodes and writes the whole document, so a 2 MB draft is not re-snapshot every 200
 * keystrokes (the cost stays in proportion to what was written), and a wake replays a bounded log.
 */
const COMPACT_AT_MOST_AFTER = 2_000;

/**
 * How long relayed keystrokes may wait in memory before they are appended. A pending timer keeps
 * the object from hibernating, so an idle object never drops them; only a crash or a deploy inside
 * this window can, and then the typing client still has them and sends them again on reconnect
 * (y-protocols sync step 2 answers the server's step 1).
 */
export const EDIT_FLUSH_MS = 200;

export type UpdateListener = (update: Uint8Array, origin: unknown) => void;

export interface StagedWrite {
  key: string;
  deleted: boolean;
  content: string;
  /** Used only when the key has no entry yet. */
  baseRevision: number;
  baseHash: string | null;
}

export type ClientUpdateResult =
  | { ok: true; changed: boolean }
  | { ok: false; code: 'YJS_MALFORMED' | 'YJS_FORBIDDEN_CHANGE' | 'YJS_TOO_LARGE'; message: string };

type EntryMap = Y.Map<unknown>;

/** Replace a Y.Text's content with `next`, touching only the middle that differs. */
function replaceText(text: Y.Text, next: string): void {
  const current = text.toString();
  if (current === next) return;
  let start = 0;
  const max = Math.min(current.length, next.length);
  while (start < max && current.charCodeAt(start) === next.charCodeAt(start)) start++;
  let end = 0;
  while (
    end < max - start &&
    current.charCodeAt(current.length - 1 - end) === next.charCodeAt(next.length - 1 - end)
  ) {
    end++;
  }
  text.delete(start, current.length - start - end);
  text.insert(start, next.slice(start, next.length - end));
}

function readEntry(key: string, map: EntryMap): OverlayEntry {
  const text = map.get('text');
  return {
    key,
    deleted: map.get('deleted') === true,
    content: text instanceof Y.Text ? text.toString() : '',
    baseRevision: typeof map.get('baseRevision') === 'number' ? (map.get('baseRevision') as number) : 0,
    baseHash: typeof map.get('baseHash') === 'string' ? (map.get('baseHash') as string) : null,
  };
}

export class OverlayDoc {
  readonly doc = new Y.Doc();
  readonly #sql: SqlStorage;
  readonly #listeners: UpdateListener[] = [];
  #rows = 0;
  /** The bytes of the log at the last snapshot (or wake), and those appended since. */
  #baseBytes = 0;
  #sinceBytes = 0;
  /** Keystrokes relayed but not yet appended (oldest first), and who is told when the first arrives. */
  #pending: Uint8Array[] = [];
  #onPending: (() => void) | null = null;
  /** Set while a socket's update is applied: its update event is relayed first and appended later. */
  #clientUpdate = false;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
    this.#load();
    this.doc.on('update', (update: Uint8Array, origin: unknown) => {
      if (this.#clientUpdate) {
        // Relay first, append behind (see the module note): no write precedes the relayed frame.
        for (const listener of this.#listeners) listener(update, origin);
        this.#pending.push(update);
        if (this.#pending.length === 1) this.#onPending?.();
        return;
      }
      // The server's own update: persist first (after the keystrokes before it, in order), then broadcast.
      this.#pending.push(update);
      this.flush();
      for (const listener of this.#listeners) listener(update, origin);
    });
  }

  /** Append the updates waiting in memory, oldest first, in one go (one commit); compact if the log grew. */
  flush(): void {
    if (this.#pending.length === 0) return;
    const pending = this.#pending;
    this.#pending = [];
    for (const update of pending) {
      this.#sql.exec('INSERT INTO y_updates (data) VALUES (?)', toArrayBuffer(update));
      this.#rows++;
      this.#sinceBytes += update.byteLength;
    }
    if (this.#rows > COMPACT_AFTER && (this.#sinceBytes >= this.#baseBytes || this.#rows > COMPACT_AT_MOST_AFTER)) this.compact();
  }

  /** Relayed keystrokes not yet appended. */
  get pending(): number {
    return this.#pending.length;
  }

  /** Called when a keystroke starts waiting in memory (the session object sets the flush timer). */
  onPending(listener: () => void): void {
    this.#onPending = listener;
  }

  #load(): void {
    const rows = this.#sql.exec<{ data: ArrayBuffer }>('SELECT data FROM y_updates ORDER BY id').toArray();
    this.doc.transact(() => {
      for (const row of rows) Y.applyUpdate(this.doc, new Uint8Array(row.data), 'load');
    }, 'load');
    this.#rows = rows.length;
    this.#baseBytes = rows.reduce((sum, row) => sum + row.data.byteLength, 0);
    this.#sinceBytes = 0;
  }

  /** Replace the update log with one snapshot of the current state. */
  compact(): void {
    // The snapshot holds every update, the waiting keystrokes too.
    this.#pending = [];
    const snapshot = Y.encodeStateAsUpdate(this.doc);
    this.#sql.exec('DELETE FROM y_updates');
    this.#sql.exec('INSERT INTO y_updates (data) VALUES (?)', toArrayBuffer(snapshot));
    this.#rows = 1;
    this.#baseBytes = snapshot.byteLength;
    this.#sinceBytes = 0;
  }

  onUpdate(listener: UpdateListener): void {
    this.#listeners.push(listener);
  }

  get #files(): Y.Map<EntryMap> {
    return this.doc.getMap<EntryMap>(FILES);
  }

  entries(): OverlayEntry[] {
    return [...this.#files.entries()]
      .filter(([, map]) => map instanceof Y.Map)
      .map(([key, map]) => readEntry(key, map))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  entry(key: string): OverlayEntry | undefined {
    const map = this.#files.get(key);
    return map instanceof Y.Map ? readEntry(key, map) : undefined;
  }

  /** A staged file's live text (comment anchors resolve against it); undefined when not staged or deleted. */
  textOf(key: string): Y.Text | undefined {
    const map = this.#files.get(key);
    if (!(map instanceof Y.Map) || map.get('deleted') === true) return undefined;
    const text = map.get('text');
    return text instanceof Y.Text ? text : undefined;
  }

  get size(): number {
    return this.#files.size;
  }

  /** Write staged objects in one transaction (one update). An existing entry keeps its base revision/hash. */
  stage(writes: readonly StagedWrite[], origin: unknown): void {
    this.doc.transact(() => {
      for (const write of writes) {
        let map = this.#files.get(write.key);
        if (!(map instanceof Y.Map)) {
          map = new Y.Map<unknown>();
          map.set('text', new Y.Text());
          map.set('deleted', false);
          map.set('baseRevision', write.baseRevision);
          map.set('baseHash', write.baseHash);
          this.#files.set(write.key, map);
        }
        if (map.get('deleted') !== write.deleted) map.set('deleted', write.deleted);
        replaceText(map.get('text') as Y.Text, write.deleted ? '' : write.content);
      }
    }, origin);
  }

  /** Drop some entries (a checkpoint restored that did not stage them); one update inside a caller's transaction. */
  remove(keys: readonly string[], origin: unknown): void {
    this.doc.transact(() => {
      for (const key of keys) this.#files.delete(key);
    }, origin);
  }

  /**
   * A rebase (../rebase-commands.ts): write each merged text and move the entry's baseline marker
   * (revision and hash) to the baseline it was merged onto, in one transaction. Unknown keys are skipped.
   */
  moveBase(writes: readonly StagedWrite[], origin: unknown): void {
    this.doc.transact(() => {
      for (const write of writes) {
        const map = this.#files.get(write.key);
        if (!(map instanceof Y.Map)) continue;
        if (map.get('deleted') !== write.deleted) map.set('deleted', write.deleted);
        replaceText(map.get('text') as Y.Text, write.deleted ? '' : write.content);
        if (map.get('baseRevision') !== write.baseRevision) map.set('baseRevision', write.baseRevision);
        if (map.get('baseHash') !== write.baseHash) map.set('baseHash', write.baseHash);
      }
    }, origin);
  }

  /** Drop every entry (discard, cancel, or the reset after apply). */
  clear(origin: unknown): void {
    if (this.#files.size === 0) return;
    this.doc.transact(() => {
      for (const key of [...this.#files.keys()]) this.#files.delete(key);
    }, origin);
  }

  /**
   * An update from a socket. `readOnly` (viewers): accepted only when it adds nothing the
   * document lacks (a y-protocols client answers the server's sync step 1 with its state).
   */
  applyClientUpdate(update: Uint8Array, origin: unknown, readOnly: boolean): ClientUpdateResult {
    const check = checkCoEdit(this.doc, this.#files, update, readOnly, MAX_ENTRY_CHARS);
    if (!check.ok || !check.changed) return check;
    this.#clientUpdate = true;
    try {
      Y.applyUpdate(this.doc, update, origin);
    } catch {
      return { ok: false, code: 'YJS_MALFORMED', message: 'The document update could not be applied.' };
    } finally {
      this.#clientUpdate = false;
    }
    return { ok: true, changed: true };
  }
}
