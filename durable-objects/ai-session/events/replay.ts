/**
 * A resume replay: every event after the client's `lastSeq`, read a page at a time until the log
 * is exhausted (so no length is too long), packed into `events` frames that stay under the server
 * frame cap measured in UTF-8 bytes. The frames are the texts the socket sends, put together from
 * the events' stored JSON (event-log.ts `textsAfter`) rather than parsed and written again. The
 * caller sends each frame as it comes and subscribes the socket in the same synchronous step, so
 * nothing falls between the replay and live events.
 */
import { MAX_SERVER_FRAME_BYTES, utf8Bytes } from '../../../shared/protocol.ts';
import type { EventLog } from './event-log.ts';

/** Events read from SQLite per page; the object may lower it (tests do, to stay small). */
export const REPLAY_PAGE_SIZE = 1_000;

/** Room for the frame's own JSON around the events (`{"type":"events","events":[…],"replay":true,"done":false}`). */
const FRAME_OVERHEAD_BYTES = 128;

/** Only 7-bit characters: as many UTF-8 bytes as UTF-16 units, no encoding needed to count them. */
const ASCII = /^[\x00-\x7f]*$/;

export interface ReplayOptions {
  pageSize?: number;
  maxFrameBytes?: number;
}

/** An `events` frame (shared/protocol.ts EventsMessage) as JSON.stringify writes it, from the events' JSON texts. */
function framed(events: readonly string[], done: boolean): string {
  return `{"type":"events","events":[${events.join(',')}],"replay":true,"done":${done}}`;
}

/** The live `events` frame of one event, from its JSON text (event-log.ts `appendText`). */
export function liveFrame(eventText: string): string {
  return `{"type":"events","events":[${eventText}],"replay":false,"done":true}`;
}

/** The replay frames' texts after `afterSeq`, oldest first; exactly the last has `done: true`. */
export function* replayFrames(log: EventLog, afterSeq: number, options: ReplayOptions = {}): Generator<string> {
  const pageSize = Math.max(1, options.pageSize ?? REPLAY_PAGE_SIZE);
  const budget = (options.maxFrameBytes ?? MAX_SERVER_FRAME_BYTES) - FRAME_OVERHEAD_BYTES;
  let current: string[] = [];
  let size = 0;
  let seq = afterSeq;
  for (;;) {
    const page = log.textsAfter(seq, pageSize);
    for (const { text } of page) {
      // One event per frame at least: events are bounded well below the cap by their schemas.
      const bytes = (ASCII.test(text) ? text.length : utf8Bytes(text)) + 1;
      if (current.length > 0 && size + bytes > budget) {
        yield framed(current, false);
        current = [];
        size = 0;
      }
      current.push(text);
      size += bytes;
    }
    if (page.length < pageSize) break;
    seq = page[page.length - 1]!.seq;
  }
  yield framed(current, true);
}
