/**
 * The session's sequenced event log. The object is the log's only writer, so the last seq is read
 * from storage once (on wake) and kept in memory: `append` is ONE synchronous SQLite write, and
 * the seq advances only once that write returned, so seqs have no gaps and no duplicates even when
 * the object is evicted right after (the next wake reads MAX(seq) again); the caller broadcasts
 * only what was stored. `after(seq)` is what a reconnecting client receives, a page at a time;
 * `textsAfter(seq)` is the same page as the JSON text each event is sent as, built from the stored
 * texts without parsing them (replay.ts).
 */
import type { NewEvent, SessionEvent } from '../../../shared/ai/events.ts';

interface EventRow extends Record<string, SqlStorageValue> {
  seq: number;
  type: string;
  at: string;
  actor: string;
  turn_id: string | null;
  payload: string;
}

function fromRow(row: EventRow): SessionEvent {
  return {
    seq: row.seq,
    type: row.type,
    at: row.at,
    actor: JSON.parse(row.actor),
    turnId: row.turn_id,
    payload: JSON.parse(row.payload),
  } as SessionEvent;
}

/**
 * The event as `JSON.stringify(fromRow(row))` writes it, without the parse: actor and payload are
 * stored as JSON.stringify wrote them, and parsing then writing JSON from JSON.stringify gives the
 * same text back.
 */
function textOfRow(row: EventRow): string {
  const turnId = row.turn_id === null ? 'null' : JSON.stringify(row.turn_id);
  return `{"seq":${row.seq},"type":${JSON.stringify(row.type)},"at":${JSON.stringify(row.at)},"actor":${row.actor},"turnId":${turnId},"payload":${row.payload}}`;
}

/** A stored event and its JSON text (the same text a replay sends for it). */
export interface Appended {
  event: SessionEvent;
  text: string;
}

export class EventLog {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** Read once per wake; afterwards only `append` moves it. */
  #last: number | null = null;

  lastSeq(): number {
    this.#last ??= this.#sql.exec<{ seq: number | null }>('SELECT MAX(seq) AS seq FROM events').one().seq ?? 0;
    return this.#last;
  }

  append(event: NewEvent): SessionEvent {
    return this.appendText(event).event;
  }

  /**
   * `append`, with the event's JSON text put together from the actor and payload texts it stored:
   * the live frame sends that text to every socket, so an event is encoded once, not twice.
   */
  appendText(event: NewEvent): Appended {
    const row: EventRow = {
      seq: this.lastSeq() + 1,
      type: event.type,
      at: new Date().toISOString(),
      actor: JSON.stringify(event.actor),
      turn_id: event.turnId ?? null,
      payload: JSON.stringify(event.payload),
    };
    this.#sql.exec('INSERT INTO events (seq, type, at, actor, turn_id, payload) VALUES (?, ?, ?, ?, ?, ?)', row.seq, row.type, row.at, row.actor, row.turn_id, row.payload);
    // Only after the row is stored: a failed insert leaves the seq free for the next event.
    this.#last = row.seq;
    const stored = { seq: row.seq, at: row.at, turnId: row.turn_id, type: event.type, actor: event.actor, payload: event.payload } as SessionEvent;
    return { event: stored, text: textOfRow(row) };
  }

  /** At most `limit` events with seq > `seq`, oldest first: one page (replay.ts pages through them all). */
  after(seq: number, limit: number): SessionEvent[] {
    return this.#sql
      .exec<EventRow>('SELECT seq, type, at, actor, turn_id, payload FROM events WHERE seq > ? ORDER BY seq LIMIT ?', seq, limit)
      .toArray()
      .map(fromRow);
  }

  /** `after(seq, limit)` as each event's JSON text, with its seq (what a replay sends). */
  textsAfter(seq: number, limit: number): Array<{ seq: number; text: string }> {
    return this.#sql
      .exec<EventRow>('SELECT seq, type, at, actor, turn_id, payload FROM events WHERE seq > ? ORDER BY seq LIMIT ?', seq, limit)
      .toArray()
      .map((row) => ({ seq: row.seq, text: textOfRow(row) }));
  }

  /** The newest event of `turnId` whose type is one of `types` (e.g. how a turn ended), if any. */
  lastOfTurn(turnId: string, types: readonly string[]): SessionEvent | undefined {
    if (types.length === 0) return undefined;
    const row = this.#sql
      .exec<EventRow>(
        `SELECT seq, type, at, actor, turn_id, payload FROM events WHERE turn_id = ? AND type IN (${types.map(() => '?').join(', ')}) ORDER BY seq DESC LIMIT 1`,
        turnId,
        ...types,
      )
      .toArray()[0];
    return row ? fromRow(row) : undefined;
  }
}
