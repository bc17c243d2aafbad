/**
 * The bench's floor Worker (bench-only, never deployed): the least a Durable Object can do for each
 * live row of `npm run bench`, run in the same workerd as the product so a ratio against it is the
 * product's own cost. Three objects: an event relay (POST → one frame to every socket), a
 * POST-then-emit log (POST → one SQLite row, 202, one frame; a hello replays rows after a seq) and a
 * y-protocols relay (sync step 1/2, updates applied to one Y.Doc and sent to the other sockets),
 * a bare `openai` tool loop (../bare-loop.ts: the turn rows' floor, paying the same hop from this
 * workerd to the model server as the product's loop); and one D1 batch writing the rows an apply
 * writes (the apply row's floor). Sockets speak the product's opening (a
 * `hello` text frame, `{type: 'hello', lastSeq}` answered by a replay) so the same clients drive both.
 */
import { DurableObject, WorkerEntrypoint } from 'cloudflare:workers';
import OpenAI from 'openai';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import { bareLoop, eventOf } from '../bare-loop.ts';
import type { BareLoopScript, LoopEvent } from '../bare-loop.ts';

interface Env {
  PRODUCT: Fetcher;
  FLOOR: Fetcher;
  FLOOR_DB: D1Database;
  RELAY: DurableObjectNamespace;
  POST_EMIT: DurableObjectNamespace;
  YJS: DurableObjectNamespace;
  LOOP: DurableObjectNamespace;
}

/** y-protocols' message type for sync frames (shared/protocol.ts's YJS_MESSAGE.SYNC). */
const SYNC = 0;

const json = (status: number, body: unknown) => Response.json(body, { status });
const liveFrame = (eventsJson: string, replay: boolean) => `{"type":"events","events":[${eventsJson}],"replay":${replay},"done":true}`;

function upgrade(ctx: DurableObjectState, lastSeq: number): Response {
  const pair = new WebSocketPair();
  ctx.acceptWebSocket(pair[1]);
  pair[1].send(JSON.stringify({ type: 'hello', lastSeq }));
  return new Response(null, { status: 101, webSocket: pair[0] });
}

/** `{type: 'hello', lastSeq}` from a socket, or null for anything else. */
function helloOf(message: string | ArrayBuffer): number | null {
  if (typeof message !== 'string') return null;
  try {
    const frame = JSON.parse(message) as { type?: unknown; lastSeq?: unknown };
    return frame.type === 'hello' && typeof frame.lastSeq === 'number' ? frame.lastSeq : null;
  } catch {
    return null;
  }
}

/** Sockets that said hello (tags are fixed at accept time, so the mark is the socket's attachment). */
function subscribed(ctx: DurableObjectState): WebSocket[] {
  return ctx.getWebSockets().filter((s) => s.deserializeAttachment() === 'subscribed');
}

/**
 * (a) The event relay: a socket hub and nothing else (no storage; the seq lives in memory). An event
 * comes as a POST, or as `{type: 'publish', event}` on one of its sockets; `{type: 'publish',
 * store: true, event}` first writes it as one SQLite row (the least a resumable log does before
 * its frame may leave: workerd holds the frame until that write is committed).
 */
export class RelayFloor extends DurableObject {
  #seq = 0;
  #table = false;

  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get('upgrade') === 'websocket') return upgrade(this.ctx, this.#seq);
    this.#publish((await request.json()) as Record<string, unknown>, false);
    return json(201, { data: { seq: this.#seq }, error: null });
  }

  #publish(event: Record<string, unknown>, store: boolean): void {
    event['seq'] = ++this.#seq;
    const text = JSON.stringify(event);
    if (store) {
      if (!this.#table) this.ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, body TEXT NOT NULL)');
      this.#table = true;
      this.ctx.storage.sql.exec('INSERT INTO events (seq, body) VALUES (?, ?)', this.#seq, text);
    }
    const frame = liveFrame(text, false);
    for (const socket of subscribed(this.ctx)) socket.send(frame);
  }

  override webSocketMessage(socket: WebSocket, message: string | ArrayBuffer): void {
    if (typeof message === 'string' && message.startsWith('{"type":"publish"')) {
      const frame = JSON.parse(message) as { event: Record<string, unknown>; store?: boolean };
      this.#publish(frame.event, frame.store === true);
      return;
    }
    if (helloOf(message) === null) return;
    socket.serializeAttachment('subscribed');
    socket.send(liveFrame('', true));
  }
}

/** (b) POST-then-emit: one SQLite row, 202, one frame; a hello replays the rows after its seq in one frame. */
export class PostEmitFloor extends DurableObject {
  #seq: number;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    this.#seq = Number(ctx.storage.sql.exec('SELECT COALESCE(MAX(seq), 0) AS seq FROM events').one()['seq']);
  }

  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get('upgrade') === 'websocket') return upgrade(this.ctx, this.#seq);
    const path = new URL(request.url).pathname;
    if (path.endsWith('/seed')) {
      // Setup only (untimed): `count` copies of one event, so a late viewer has that many to catch up on.
      const { count, event } = (await request.json()) as { count: number; event: Record<string, unknown> };
      for (let i = 0; i < count; i++) this.#append(event);
      return json(201, { data: { lastSeq: this.#seq }, error: null });
    }
    const input = (await request.json()) as Record<string, unknown>;
    const body = this.#append({ type: 'turn.accepted', payload: input });
    const frame = liveFrame(body, false);
    const response = json(202, { data: { seq: this.#seq }, error: null });
    for (const socket of subscribed(this.ctx)) socket.send(frame);
    return response;
  }

  #append(event: Record<string, unknown>): string {
    const body = JSON.stringify({ ...event, seq: ++this.#seq });
    this.ctx.storage.sql.exec('INSERT INTO events (seq, body) VALUES (?, ?)', this.#seq, body);
    return body;
  }

  override webSocketMessage(socket: WebSocket, message: string | ArrayBuffer): void {
    const lastSeq = helloOf(message);
    if (lastSeq === null) return;
    const rows = this.ctx.storage.sql.exec<{ body: string }>('SELECT body FROM events WHERE seq > ? ORDER BY seq', lastSeq).toArray();
    socket.serializeAttachment('subscribed');
    socket.send(liveFrame(rows.map((r) => r.body).join(','), true));
  }
}

/** (c) The y-protocols relay: one Y.Doc in memory (seeded by POST), updates applied and sent to the other sockets. */
export class YjsFloor extends DurableObject {
  #doc = new Y.Doc();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#doc.on('update', (update: Uint8Array, origin: unknown) => {
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, SYNC);
      syncProtocol.writeUpdate(encoder, update);
      const frame = encoding.toUint8Array(encoder);
      for (const socket of this.ctx.getWebSockets()) if (socket !== origin) socket.send(frame);
    });
  }

  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get('upgrade') === 'websocket') {
      const response = upgrade(this.ctx, 0);
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, SYNC);
      syncProtocol.writeSyncStep1(encoder, this.#doc);
      this.ctx.getWebSockets().at(-1)?.send(encoding.toUint8Array(encoder));
      return response;
    }
    Y.applyUpdate(this.#doc, new Uint8Array(await request.arrayBuffer()), 'seed');
    return json(201, { data: { bytes: Y.encodeStateAsUpdate(this.#doc).byteLength }, error: null });
  }

  override webSocketMessage(socket: WebSocket, message: string | ArrayBuffer): void {
    if (typeof message === 'string') return;
    const decoder = decoding.createDecoder(new Uint8Array(message));
    if (decoding.readVarUint(decoder) !== SYNC) return;
    const reply = encoding.createEncoder();
    encoding.writeVarUint(reply, SYNC);
    syncProtocol.readSyncMessage(decoder, reply, this.#doc, socket);
    if (encoding.length(reply) > 1) socket.send(encoding.toUint8Array(reply));
  }
}

/**
 * (d) The loop floor: `POST …/setup` gives it the script (the model server's URL and key, the
 * product's first request, tool result and event shapes) and whether it stores its events;
 * `POST …/messages` sends `turn.accepted` to the subscribed sockets, answers 202 and runs
 * bare-loop.ts's loop, each of its events one frame. No checks, no retries, no checkpoints: without
 * storage, what a turn costs in this runtime with nothing of ours; storing, each event is first one
 * SQLite row, as (b) stores it — the least a resumable event log does.
 */
type FloorSetup = BareLoopScript & { baseUrl: string; apiKey: string; store: boolean };
interface LoadedScript {
  client: OpenAI;
  script: BareLoopScript;
}

export class LoopFloor extends DurableObject {
  #seq = 0;
  #turns = 0;
  #running = false;
  #store = false;
  #script: LoadedScript | null = null;

  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get('upgrade') === 'websocket') return upgrade(this.ctx, this.#seq);
    if (new URL(request.url).pathname.endsWith('/setup')) {
      const setup = (await request.json()) as FloorSetup;
      // Kept in storage too: an object idle while the other sides run may hibernate (its sockets are
      // hibernatable) and wake without its fields.
      await this.ctx.storage.put('setup', setup);
      this.#set(setup);
      return json(201, { data: null, error: null });
    }
    const input = (await request.json()) as { content?: unknown };
    const setup = this.#script ?? (await this.#restore());
    if (!setup) return json(409, { data: null, error: { code: 'NOT_SET_UP', message: 'POST …/setup first.' } });
    if (this.#running) return json(409, { data: null, error: { code: 'AI_TURN_IN_PROGRESS', message: 'A turn is running.' } });
    this.#running = true;
    const turnId = `turn_floor_${String(++this.#turns).padStart(19, '0')}`;
    this.#publish(eventOf(setup.script.templates, 'turn.accepted', turnId, { content: input.content, suggestOnly: false }));
    const response = json(202, { data: { turnId, seq: this.#seq, status: 'running' }, error: null });
    void bareLoop(setup.client, setup.script, turnId, this.#publish)
      .catch((error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        this.#publish(eventOf(setup.script.templates, 'turn.failed', turnId, { code: 'FLOOR_FAILED', message, hints: [] }));
      })
      .finally(() => (this.#running = false));
    return response;
  }

  #set({ baseUrl, apiKey, store, ...script }: FloorSetup): void {
    this.#script = { client: new OpenAI({ baseURL: baseUrl, apiKey, maxRetries: 0, logLevel: 'off' }), script };
    this.#store = store;
    if (store) {
      this.ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, body TEXT NOT NULL)');
      this.#seq = this.ctx.storage.sql.exec<{ seq: number | null }>('SELECT MAX(seq) AS seq FROM events').one().seq ?? 0;
    }
  }

  /** The setup after a hibernation: read once, then in memory again. */
  async #restore(): Promise<LoadedScript | null> {
    const setup = await this.ctx.storage.get<FloorSetup>('setup');
    if (setup) this.#set(setup);
    return this.#script;
  }

  readonly #publish = (event: LoopEvent): void => {
    const body = JSON.stringify({ ...event, seq: ++this.#seq });
    if (this.#store) this.ctx.storage.sql.exec('INSERT INTO events (seq, body) VALUES (?, ?)', this.#seq, body);
    const frame = liveFrame(body, false);
    for (const socket of subscribed(this.ctx)) socket.send(frame);
  };

  override webSocketMessage(socket: WebSocket, message: string | ArrayBuffer): void {
    if (helloOf(message) === null) return;
    socket.serializeAttachment('subscribed');
    socket.send(liveFrame('', true));
  }
}

const OBJECTS = { relay: 'RELAY', post: 'POST_EMIT', yjs: 'YJS', loop: 'LOOP' } as const;

/** The floor's own routes, reached through the FLOOR service binding: /__floor/{relay|post|yjs|loop}/:name/… and /__floor/d1/rows. */
export class Floor extends WorkerEntrypoint<Env> {
  override async fetch(request: Request): Promise<Response> {
    const [, , kind, name] = new URL(request.url).pathname.split('/');
    if (kind === 'd1') return name === 'setup' ? this.#setup() : this.#insertRows(request);
    const binding = OBJECTS[kind as keyof typeof OBJECTS];
    if (!binding || !name) return json(404, { data: null, error: { code: 'NOT_FOUND', message: 'No such floor route.' } });
    const namespace = this.env[binding];
    return namespace.get(namespace.idFromName(name)).fetch(request);
  }

  /**
   * The apply row's tables, shaped like the product's (migrations/0000): files like `assets` (primary
   * key project + path), history like `revision_history` (text id, its three indexes), a revision row.
   */
  async #setup(): Promise<Response> {
    const db = this.env.FLOOR_DB;
    await db.batch([
      db.prepare('CREATE TABLE IF NOT EXISTS files (project_id TEXT NOT NULL, path TEXT NOT NULL, content TEXT NOT NULL, sha256 TEXT NOT NULL, bytes INTEGER NOT NULL, PRIMARY KEY (project_id, path))'),
      db.prepare(
        'CREATE TABLE IF NOT EXISTS history (id TEXT PRIMARY KEY NOT NULL, project_id TEXT NOT NULL, object_key TEXT NOT NULL, action TEXT NOT NULL, old_revision INTEGER NOT NULL, new_revision INTEGER NOT NULL, content_before TEXT, content_after TEXT, write_id TEXT NOT NULL, created_at TEXT NOT NULL)',
      ),
      db.prepare('CREATE INDEX IF NOT EXISTS history_project_idx ON history (project_id, created_at)'),
      db.prepare('CREATE INDEX IF NOT EXISTS history_object_idx ON history (project_id, object_key, created_at)'),
      db.prepare('CREATE INDEX IF NOT EXISTS history_write_idx ON history (write_id)'),
      db.prepare('CREATE TABLE IF NOT EXISTS revisions (project_id TEXT PRIMARY KEY NOT NULL, revision INTEGER NOT NULL)'),
      db.prepare("INSERT OR IGNORE INTO revisions (project_id, revision) VALUES ('floor', 0)"),
    ]);
    return json(201, { data: null, error: null });
  }

  /**
   * The apply row's floor: the rows an apply writes, in one D1 batch (one round trip, one
   * transaction), one plain statement per row: each file upserted with its hash and size, its
   * history row (before and after), the revision bumped. Hashes and ids come with the request.
   */
  async #insertRows(request: Request): Promise<Response> {
    const { rows, writeId } = (await request.json()) as {
      writeId: string;
      rows: Array<{ path: string; content: string; before: string | null; sha256: string; bytes: number }>;
    };
    const db = this.env.FLOOR_DB;
    const now = new Date().toISOString();
    await db.batch([
      db.prepare("UPDATE revisions SET revision = revision + 1 WHERE project_id = 'floor'"),
      ...rows.flatMap((r, i) => [
        db
          .prepare("INSERT INTO files (project_id, path, content, sha256, bytes) VALUES ('floor', ?, ?, ?, ?) ON CONFLICT (project_id, path) DO UPDATE SET content = excluded.content, sha256 = excluded.sha256, bytes = excluded.bytes")
          .bind(r.path, r.content, r.sha256, r.bytes),
        db
          .prepare("INSERT INTO history (id, project_id, object_key, action, old_revision, new_revision, content_before, content_after, write_id, created_at) VALUES (?, 'floor', ?, ?, 0, 1, ?, ?, ?, ?)")
          .bind(`${writeId}-${i}`, `asset:${r.path}`, r.before === null ? 'create' : 'update', r.before, r.content, writeId, now),
      ]),
    ]);
    return json(200, { data: { written: rows.length }, error: null });
  }
}

export default {
  // Both sides pay one service-binding hop: /__floor/* to the Floor entrypoint, the rest to the product.
  fetch(request: Request, env: Env): Promise<Response> {
    return new URL(request.url).pathname.startsWith('/__floor/') ? env.FLOOR.fetch(request) : env.PRODUCT.fetch(request);
  },
} satisfies ExportedHandler<Env>;
