/**
 * The Node peer of bench/turn.ts: bench/bare-loop.ts's bare AI tool loop behind the smallest relay
 * that does the product's job, session-peer.ts's event relay on a free loopback port.
 * `POST /messages` appends a `turn.accepted` event to an in-memory log and sends it to every
 * subscribed socket, answers 202, then runs the loop. No storage, no checks, no retries.
 */
import OpenAI from 'openai';
import { bareLoop, eventOf } from './bare-loop.ts';
import type { BareLoopScript, LoopEvent } from './bare-loop.ts';
import { json, startEventRelay } from './session-peer.ts';
import type { EventRelay, PeerServer } from './session-peer.ts';

export interface TurnPeerOptions extends BareLoopScript {
  /** The scripted server's base URL (ending in /v1) and a key. */
  baseUrl: string;
  apiKey: string;
}

export async function startTurnPeer(options: TurnPeerOptions): Promise<PeerServer> {
  const client = new OpenAI({ baseURL: options.baseUrl, apiKey: options.apiKey, maxRetries: 0, logLevel: 'off' });
  let running = false;
  let turns = 0;
  const publish = (event: LoopEvent) => relay.publish({ ...event, seq: relay.log.length + 1 });

  const relay: EventRelay = await startEventRelay<{ content?: unknown }>('/messages', (input, res) => {
    if (typeof input.content !== 'string') return json(res, 400, { data: null, error: { code: 'VALIDATION_FAILED', message: 'content: a string' } });
    if (running) return json(res, 409, { data: null, error: { code: 'AI_TURN_IN_PROGRESS', message: 'A turn is running.' } });
    running = true;
    turns += 1;
    const turnId = `turn_peer_${String(turns).padStart(20, '0')}`;
    publish(eventOf(options.templates, 'turn.accepted', turnId, { content: input.content, suggestOnly: false }));
    json(res, 202, { data: { turnId, seq: relay.log.length, status: 'running' }, error: null });
    bareLoop(client, options, turnId, publish)
      .catch((error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        publish(eventOf(options.templates, 'turn.failed', turnId, { code: 'PEER_FAILED', message, hints: [] }));
      })
      .finally(() => (running = false));
  });
  return relay;
}
