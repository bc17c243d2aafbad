/**
 * A resume replay: every event after the client's `lastSeq`, read a page at a time until the log
 * is exhausted (so no length is too long), packed into `events` frames that stay under the server
 * frame cap measured in UTF-8 bytes. The caller sends each frame as it comes and subscribes the
 * socket in the same synchronous step, so nothing falls between the replay and live events.
 */
import type { SessionEvent } from '../../../shared/ai/events.ts';
import { MAX_SERVER_FRAME_BYTES, utf8Bytes, type EventsMessage } from '../../../shared/protocol.ts';
import type { EventLog } from './event-log.ts';

/** Events read from SQLite per page; the object may lower it (tests do, to stay small). */
export const REPLAY_PAGE_SIZE = 1_000;

/** Room for the frame's own JSON around the events (`{"type":"events","events":[…],"replay":true,"done":false}`). */
const FRAME_OVERHEAD_BYTES = 128;

export interface ReplayOptions {
  pageSize?: number;
  maxFrameBytes?: number;
}

/** The replay frames after `afterSeq`, oldest first; exactly the last has `done: true`. */
export function* replayFrames(log: EventLog, afterSeq: number, options: ReplayOptions = {}): Generator<EventsMessage> {
  const pageSize = Math.max(1, options.pageSize ?? REPLAY_PAGE_SIZE);
  const budget = (options.maxFrameBytes ?? MAX_SERVER_FRAME_BYTES) - FRAME_OVERHEAD_BYTES;
  let current: SessionEvent[] = [];
  let size = 0;
  let seq = afterSeq;
  for (;;) {
    const page = log.after(seq, pageSize);
    for (const event of page) {
      // One event per frame at least: events are bounded well below the cap by their schemas.
      const bytes = utf8Bytes(JSON.stringify(event)) + 1;
      if (current.length > 0 && size + bytes > budget) {
        yield { type: 'events', events: current, replay: true, done: false };
        current = [];
        size = 0;
      }
      current.push(event);
      size += bytes;
    }
    if (page.length < pageSize) break;
    seq = page[page.length - 1]!.seq;
  }
  yield { type: 'events', events: current, replay: true, done: true };
}
