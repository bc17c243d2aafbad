/**
 * The plain peers of bench/session.ts, in-process Node servers on a free loopback port: an event
 * fan-out server (HTTP POST → append to an in-memory log with a seq → one JSON frame to every
 * subscribed socket) and a y-protocols relay (one Y.Doc in memory; an update is applied and sent
 * to the other sockets, as y-websocket's example server does, without its persistence). The
 * fan-out server's event relay (`startEventRelay`) also carries turn-peer.ts's tool loop.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import { WebSocketServer } from 'ws';
import type { RawData, WebSocket } from 'ws';
import { YJS_MESSAGE } from '../shared/protocol.ts';

export interface PeerServer {
  /** e.g. `http://127.0.0.1:41234` (no trailing slash). */
  url: string;
  /** Closes every socket and the server. */
  close(): Promise<void>;
}

/** A `{type: 'events'}` frame's one event as the product sent it; the peer copies its shape and size. */
export type EventTemplate = Record<string, unknown> & { seq: number; payload: Record<string, unknown> };

/** Both peers listen on one HTTP server; `ws` shares it for the upgrade. */
async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; wss: WebSocketServer; url: string }> {
  const server = createServer(handler);
  const wss = new WebSocketServer({ server, perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { server, wss, url: `http://127.0.0.1:${port}` };
}

function closer(server: Server, wss: WebSocketServer): () => Promise<void> {
  return async () => {
    for (const socket of wss.clients) socket.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
}

/** A `ws` message's bytes, whichever of its three shapes it arrived in. */
export function bytesOf(data: RawData): Uint8Array {
  const buffer = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A peer that keeps an event log its subscribed sockets follow, as ours does. */
export interface EventRelay extends PeerServer {
  /** Every event so far, seq 1 first. */
  readonly log: readonly EventTemplate[];
  /** Appends `event` to the log and sends it, as one live `{type: 'events'}` frame, to every subscribed socket. */
  publish(event: EventTemplate): void;
}

/**
 * The relay both event peers stand on (the fan-out peer here, turn-peer.ts): `POST route` with a
 * JSON body goes to `onPost` (anything else is a 404, a body that is not JSON a 400). A socket
 * gets `{type: 'hello', lastSeq}` on connect and subscribes with `{type: 'hello', lastSeq}`,
 * answered with the events after it as a replay, as ours does.
 */
export async function startEventRelay<Input extends object>(route: string, onPost: (input: Input, res: ServerResponse) => void): Promise<EventRelay> {
  const log: EventTemplate[] = [];
  const subscribed = new Set<WebSocket>();
  const { server, wss, url } = await listen((req, res) => {
    if (req.method !== 'POST' || req.url !== route) return json(res, 404, { data: null, error: { code: 'NOT_FOUND', message: `POST ${route}` } });
    readBody(req).then(
      (text) => {
        let input: Input;
        try {
          input = JSON.parse(text) as Input;
        } catch {
          return json(res, 400, { data: null, error: { code: 'INVALID_JSON', message: 'Send one JSON object.' } });
        }
        onPost(input, res);
      },
      () => json(res, 400, { data: null, error: { code: 'BAD_REQUEST', message: 'The body could not be read.' } }),
    );
  });
  wss.on('connection', (socket) => {
    socket.send(JSON.stringify({ type: 'hello', lastSeq: log.length }));
    socket.on('message', (data, isBinary) => {
      if (isBinary) return;
      let frame: { type?: unknown; lastSeq?: unknown };
      try {
        frame = JSON.parse(String(data)) as typeof frame;
      } catch {
        return;
      }
      if (frame.type !== 'hello' || typeof frame.lastSeq !== 'number') return;
      const lastSeq = frame.lastSeq;
      socket.send(JSON.stringify({ type: 'events', events: log.filter((e) => e.seq > lastSeq), replay: true, done: true }));
      subscribed.add(socket);
    });
    socket.on('close', () => subscribed.delete(socket));
  });
  return {
    url,
    log,
    publish(event) {
      log.push(event);
      const frame = JSON.stringify({ type: 'events', events: [event], replay: false, done: true });
      for (const socket of subscribed) if (socket.readyState === socket.OPEN) socket.send(frame);
    },
    close: closer(server, wss),
  };
}

/**
 * The fan-out peer: `POST /events` with `{objectKey, line, body}` appends an event shaped like
 * `template` and sends it to every subscribed socket, then answers 201.
 */
export async function startFanoutPeer(template: EventTemplate): Promise<PeerServer> {
  const relay: EventRelay = await startEventRelay<{ objectKey?: unknown; line?: unknown; body?: unknown }>('/events', (input, res) => {
    const event: EventTemplate = {
      ...template,
      seq: relay.log.length + 1,
      at: new Date().toISOString(),
      payload: { ...template.payload, objectKey: input.objectKey, line: input.line, body: input.body },
    };
    relay.publish(event);
    json(res, 201, { data: { threadId: event.payload.threadId, commentId: event.payload.commentId }, error: null });
  });
  return relay;
}

/**
 * The Yjs peer: one Y.Doc starting from `initialState`. On connect it sends a hello text frame
 * and sync step 1; a sync
 * step 1 is answered with step 2; a step 2 or an update is applied with the socket as origin, and
 * the doc's update goes to every other socket.
 */
export async function startYjsPeer(initialState: Uint8Array): Promise<PeerServer> {
  const doc = new Y.Doc();
  Y.applyUpdate(doc, initialState);
  const { server, wss, url } = await listen((_req, res) => json(res, 404, { data: null, error: { code: 'NOT_FOUND', message: 'WebSocket only.' } }));
  doc.on('update', (update: Uint8Array, origin: unknown) => {
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, YJS_MESSAGE.SYNC);
    syncProtocol.writeUpdate(encoder, update);
    const frame = encoding.toUint8Array(encoder);
    for (const socket of wss.clients) if (socket !== origin && socket.readyState === socket.OPEN) socket.send(frame);
  });
  wss.on('connection', (socket) => {
    // The same opening as ours: a hello text frame, then sync step 1.
    socket.send(JSON.stringify({ type: 'hello', lastSeq: 0 }));
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, YJS_MESSAGE.SYNC);
    syncProtocol.writeSyncStep1(encoder, doc);
    socket.send(encoding.toUint8Array(encoder));
    socket.on('message', (data, isBinary) => {
      if (!isBinary) return;
      const decoder = decoding.createDecoder(bytesOf(data));
      if (decoding.readVarUint(decoder) !== YJS_MESSAGE.SYNC) return;
      const reply = encoding.createEncoder();
      encoding.writeVarUint(reply, YJS_MESSAGE.SYNC);
      syncProtocol.readSyncMessage(decoder, reply, doc, socket);
      if (encoding.length(reply) > 1) socket.send(encoding.toUint8Array(reply));
    });
  });
  return { url, close: closer(server, wss) };
}
