/**
 * The live channel's rows of `npm run bench` (run.ts calls `sessionBench` after the CPU rows;
 * alone: `npm exec -- node bench/session.ts`): one session event fanned out to 1 / 10 / 100
 * sockets, and a Yjs update's trip from one client to another. Ours is the real product under
 * `wrangler dev` (workerd, local D1, the session Durable Object), driven over HTTP and `ws`
 * sockets exactly as the SPA does; the peer is a plain in-process Node server (session-peer.ts)
 * measured the same way in the same run. Every wait is bounded; a failure throws with the
 * product's recent output, after every socket, server and process this file started is closed.
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { strToU8, zipSync } from 'fflate';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import { WebSocket } from 'ws';
import { bytesOf, startFanoutPeer, startYjsPeer } from './session-peer.ts';
import type { EventTemplate, PeerServer } from './session-peer.ts';
import { markdownTable } from './table.ts';
import type { ResultRow } from './table.ts';
import { YJS_MESSAGE } from '../shared/protocol.ts';
import { ROOT, startProduct } from '../test/browser/product.ts';
import type { Product } from '../test/browser/product.ts';

const FANOUT_SOCKETS = [1, 10, 100] as const;
/**
 * Each case runs WARMUP samples per side, then ROUNDS rounds of PER_ROUND samples per side, the
 * sides back to back (alternating which goes first) like run.ts, so a burst of load lands on both:
 * 100 samples per side per case, the section about 25 s on a 2-core machine with the product's
 * start. The ratio is the median of the round ratios (each the ratio of the two round medians).
 */
const WARMUP = 8;
const ROUNDS = 5;
const PER_ROUND = 20;
/** One sample (request → last socket) or one Yjs trip; far above any plausible figure. */
const SAMPLE_TIMEOUT_MS = 10_000;
/** Opening a socket up to its hello, subscribing, syncing a Y.Doc, one API call. */
const STEP_TIMEOUT_MS = 15_000;
/** Opening this many sockets at once (each is a Worker request with D1 reads, then the DO). */
const CONNECT_BATCH = 10;
/** The whole section, product start included: a stuck wait can never hang `npm run bench`. */
const SECTION_TIMEOUT_MS = 240_000;

const DEMO_PACKAGE = path.join(ROOT, 'scripts/demo-package');
const WORKFLOW = 'vendor-intake';
const STEP = 'capture-request';
const STEP_KEY = `step:${WORKFLOW}/${STEP}`;
const PASSWORD = 'bench-password-123';

export interface SessionBenchResult {
  rows: ResultRow[];
  /** p95 of the pooled samples, per row. */
  p95: Array<{ name: string; ours: number; peer: number }>;
  seconds: number;
}

// ---- small helpers --------------------------------------------------------------------------

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms / 1000} s waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Same length on both sides, unique per sample, so a frame is recognised by a substring search. */
const marker = (side: 'ours' | 'peer', kind: string, n: number) => `bench-${kind}-${side}-${String(n).padStart(5, '0')}`;

// ---- the product's API ----------------------------------------------------------------------

/** A signed-in user of the product: the session cookie, sent with the same-origin `Origin`. */
class ApiUser {
  readonly baseUrl: string;
  readonly email: string;
  cookie = '';

  constructor(baseUrl: string, email: string) {
    this.baseUrl = baseUrl;
    this.email = email;
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { origin: this.baseUrl, ...(this.cookie ? { cookie: this.cookie } : {}), ...extra };
  }

  /** One call; anything but `expect` is a failure with the server's error body. */
  async call<T = any>(method: string, route: string, body: unknown, expect: number): Promise<T> {
    const form = body instanceof FormData;
    const res = await fetch(`${this.baseUrl}${route}`, {
      method,
      headers: this.headers(body === undefined || form ? {} : { 'content-type': 'application/json' }),
      ...(body === undefined ? {} : { body: form ? body : JSON.stringify(body) }),
      signal: AbortSignal.timeout(STEP_TIMEOUT_MS),
    });
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) this.cookie = setCookie.split(';')[0]!;
    const text = await res.text();
    if (res.status !== expect) throw new Error(`${method} ${route} answered ${res.status}, expected ${expect}: ${text.slice(0, 500)}`);
    return (JSON.parse(text) as { data: T }).data;
  }
}

let users = 0;
async function register(baseUrl: string, label: string): Promise<ApiUser> {
  users += 1;
  const user = new ApiUser(baseUrl, `bench-${label}-${Date.now().toString(36)}${users}@example.test`);
  await user.call('POST', '/api/auth/register', { name: `Bench ${label}`, email: user.email, password: PASSWORD }, 201);
  return user;
}

/** The demo package (scripts/demo-package), imported as a .bmad zip the way an author would. */
async function importDemo(owner: ApiUser): Promise<string> {
  const entries: Record<string, Uint8Array> = {};
  for (const entry of await readdir(DEMO_PACKAGE, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.relative(DEMO_PACKAGE, path.join(entry.parentPath, entry.name));
    if (file !== 'README.md') entries[file] = strToU8(await readFile(path.join(DEMO_PACKAGE, file), 'utf8'));
  }
  const form = new FormData();
  form.set('file', new Blob([zipSync(entries)], { type: 'application/zip' }), 'package.bmad');
  form.set('name', 'Bench: vendor onboarding');
  const data = await owner.call<{ project: { id: string } }>('POST', '/api/projects/import', form, 201);
  return data.project.id;
}

async function stepSession(owner: ApiUser, base: string): Promise<string> {
  const data = await owner.call<{ sessionId: string }>('POST', `${base}/ai/sessions`, { workflowId: WORKFLOW, targetType: 'step', targetId: STEP, mode: 'optimize' }, 201);
  return data.sessionId;
}

// ---- sockets --------------------------------------------------------------------------------

interface TextWaiter {
  test: (text: string) => boolean;
  resolve: (arrival: { at: number; text: string }) => void;
  reject: (error: Error) => void;
}

/** A `ws` client that hands text frames to bounded waiters and binary frames to `onBinary`. */
class Client {
  readonly socket: WebSocket;
  readonly label: string;
  onBinary: ((bytes: Uint8Array) => void) | undefined;
  lastError = '';
  #waiters: TextWaiter[] = [];
  #closed: string | null = null;

  constructor(socket: WebSocket, label: string) {
    this.socket = socket;
    this.label = label;
    socket.on('message', (data, isBinary) => {
      const at = performance.now();
      if (isBinary) {
        this.onBinary?.(bytesOf(data));
        return;
      }
      const text = String(data);
      if (text.startsWith('{"type":"error"')) this.lastError = text;
      for (const waiter of this.#waiters.filter((w) => w.test(text))) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve({ at, text });
      }
    });
    socket.on('close', (code, reason) => {
      this.#closed = `closed with ${code} ${String(reason)}`;
      for (const waiter of this.#waiters.splice(0)) waiter.reject(new Error(`${this.label}: the socket ${this.#closed}`));
    });
    socket.on('error', () => undefined); // 'close' follows and says why
  }

  /** The next text frame that passes `test`, with its arrival time (performance.now()). */
  waitText(test: (text: string) => boolean, what: string, timeoutMs = STEP_TIMEOUT_MS): Promise<{ at: number; text: string }> {
    if (this.#closed) return Promise.reject(new Error(`${this.label}: the socket ${this.#closed} before ${what}`));
    let waiter!: TextWaiter;
    const arrived = new Promise<{ at: number; text: string }>((resolve, reject) => (waiter = { test, resolve, reject }));
    this.#waiters.push(waiter);
    return withTimeout(arrived, timeoutMs, `${what} on ${this.label}${this.lastError ? ` (last error frame: ${this.lastError})` : ''}`).catch(
      (error: unknown) => {
        const at = this.#waiters.indexOf(waiter);
        if (at >= 0) this.#waiters.splice(at, 1);
        throw error;
      },
    );
  }

  close(): void {
    if (this.socket.readyState === WebSocket.OPEN || this.socket.readyState === WebSocket.CONNECTING) this.socket.terminate();
  }
}

const isHello = (text: string) => text.startsWith('{"type":"hello"');
const isReplay = (text: string) => text.startsWith('{"type":"events"') && text.includes('"replay":true');

/** Opens a socket and waits for the server's hello; its `lastSeq` comes back with the client. */
async function connect(url: string, headers: Record<string, string>, label: string, clients: Set<Client>): Promise<{ client: Client; lastSeq: number }> {
  const socket = new WebSocket(url, { headers, perMessageDeflate: false, handshakeTimeout: STEP_TIMEOUT_MS });
  const client = new Client(socket, label);
  clients.add(client);
  const hello = client.waitText(isHello, 'the hello frame');
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', (error) => reject(new Error(`${label}: could not open ${url}: ${error.message}`)));
  });
  await Promise.all([withTimeout(opened, STEP_TIMEOUT_MS, `${label} to open`), hello.catch(() => undefined)]);
  const { text } = await hello;
  return { client, lastSeq: (JSON.parse(text) as { lastSeq: number }).lastSeq };
}

/** N subscribed sockets: each sends `{type: 'hello', lastSeq}` and waits for its (empty) replay. */
async function subscribedSockets(url: string, headers: Record<string, string>, count: number, label: string, clients: Set<Client>): Promise<Client[]> {
  const opened: Client[] = [];
  for (let start = 0; start < count; start += CONNECT_BATCH) {
    const batch = Array.from({ length: Math.min(CONNECT_BATCH, count - start) }, async (_, i) => {
      const { client, lastSeq } = await connect(url, headers, `${label} socket ${start + i + 1}/${count}`, clients);
      const replay = client.waitText(isReplay, 'the replay after hello');
      client.socket.send(JSON.stringify({ type: 'hello', lastSeq }));
      await replay;
      return client;
    });
    opened.push(...(await Promise.all(batch)));
  }
  return opened;
}

async function closeAll(clients: Iterable<Client>): Promise<void> {
  const closing = [...clients].map((client) => {
    if (client.socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    const closed = new Promise<void>((resolve) => client.socket.once('close', () => resolve()));
    client.close();
    return withTimeout(closed, 5_000, `${client.label} to close`).catch(() => undefined);
  });
  await Promise.all(closing);
}

const REMOTE = Symbol('remote');

/** A y-protocols client over a Client, like y-websocket's provider: answers sync step 1, sends its own updates. */
class YClient {
  readonly doc = new Y.Doc();
  readonly client: Client;
  #watchers: Array<() => void> = [];

  constructor(client: Client) {
    this.client = client;
    client.onBinary = (bytes) => {
      const decoder = decoding.createDecoder(bytes);
      if (decoding.readVarUint(decoder) !== YJS_MESSAGE.SYNC) return;
      const reply = encoding.createEncoder();
      encoding.writeVarUint(reply, YJS_MESSAGE.SYNC);
      syncProtocol.readSyncMessage(decoder, reply, this.doc, REMOTE);
      if (encoding.length(reply) > 1) client.socket.send(encoding.toUint8Array(reply));
      for (const watcher of [...this.#watchers]) watcher();
    };
    this.doc.on('update', (update: Uint8Array, origin: unknown) => {
      if (origin === REMOTE) return;
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, YJS_MESSAGE.SYNC);
      syncProtocol.writeUpdate(encoder, update);
      client.socket.send(encoding.toUint8Array(encoder));
    });
  }

  text(): Y.Text | undefined {
    const text = this.doc.getMap<Y.Map<unknown>>('files').get(STEP_KEY)?.get('text');
    return text instanceof Y.Text ? text : undefined;
  }

  /** Resolves with performance.now() once a frame from the server makes `check` true. */
  until(check: () => boolean, what: string, timeoutMs = STEP_TIMEOUT_MS): Promise<number> {
    let watcher!: () => void;
    const reached = new Promise<number>((resolve) => {
      watcher = () => {
        if (check()) resolve(performance.now());
      };
    });
    this.#watchers.push(watcher);
    const lastError = () => (this.client.lastError ? ` (last error frame: ${this.client.lastError})` : '');
    return withTimeout(reached, timeoutMs, `${what} on ${this.client.label}`)
      .catch((error: unknown) => {
        throw new Error(`${error instanceof Error ? error.message : String(error)}${lastError()}`);
      })
      .finally(() => {
        const at = this.#watchers.indexOf(watcher);
        if (at >= 0) this.#watchers.splice(at, 1);
      });
  }

  /** Ask for the server's whole state and wait for the staged step's text. */
  async sync(): Promise<void> {
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, YJS_MESSAGE.SYNC);
    syncProtocol.writeSyncStep1(encoder, this.doc);
    const synced = this.until(() => (this.text()?.length ?? 0) > 0, `the staged ${STEP_KEY} in the Y.Doc`);
    this.client.socket.send(encoding.toUint8Array(encoder));
    await synced;
  }
}

// ---- measurement ----------------------------------------------------------------------------

type Sample = (n: number) => Promise<number>;

interface Case {
  name: string;
  peer: string;
  ours: Sample;
  reference: Sample;
}

async function measure(c: Case): Promise<{ row: ResultRow; p95: { name: string; ours: number; peer: number } }> {
  let n = 0;
  for (let i = 0; i < WARMUP; i++) {
    await c.ours(n++);
    await c.reference(n++);
  }
  const samples = { ours: [] as number[], peer: [] as number[] };
  const roundRatios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const inRound = { ours: [] as number[], peer: [] as number[] };
    for (const side of round % 2 === 0 ? (['ours', 'peer'] as const) : (['peer', 'ours'] as const)) {
      const sample = side === 'ours' ? c.ours : c.reference;
      for (let i = 0; i < PER_ROUND; i++) inRound[side].push(await sample(n++));
    }
    samples.ours.push(...inRound.ours);
    samples.peer.push(...inRound.peer);
    roundRatios.push(median(inRound.ours) / median(inRound.peer));
  }
  return {
    row: {
      name: c.name,
      oursMs: median(samples.ours),
      peerMs: median(samples.peer),
      oursRuns: samples.ours.length,
      peerRuns: samples.peer.length,
      ratio: median(roundRatios),
      roundRatios,
      peer: c.peer,
    },
    p95: { name: c.name, ours: percentile(samples.ours, 95), peer: percentile(samples.peer, 95) },
  };
}

/** Request → the last of `clients` has the frame carrying `mark`; the response is awaited too. */
async function fanoutSample(clients: readonly Client[], mark: string, trigger: () => Promise<void>): Promise<number> {
  const arrivals = Promise.all(clients.map((c) => c.waitText((text) => text.includes(mark), `the event ${mark}`, SAMPLE_TIMEOUT_MS)));
  const start = performance.now();
  const [received] = await Promise.all([arrivals, trigger()]);
  return Math.max(...received.map((r) => r.at)) - start;
}

async function post(url: string, headers: Record<string, string>, body: unknown, expect: number): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(SAMPLE_TIMEOUT_MS),
  });
  const text = await res.text();
  if (res.status !== expect) throw new Error(`POST ${url} answered ${res.status}, expected ${expect}: ${text.slice(0, 500)}`);
}

/** `text.insert` on A → B's Y.Doc has the marker. */
async function yjsSample(a: YClient, b: YClient, mark: string): Promise<number> {
  const text = a.text();
  if (!text) throw new Error(`${a.client.label} lost the staged text`);
  const at = text.toString().indexOf('## Goal');
  const seen = b.until(() => b.text()?.toString().includes(mark) === true, `the inserted ${mark}`, SAMPLE_TIMEOUT_MS);
  const start = performance.now();
  text.insert(Math.max(at, 0), `${mark}\n`);
  return (await seen) - start;
}

// ---- the section ----------------------------------------------------------------------------

/** What the section has started, for the cleanup. */
interface Resources {
  product?: Product;
  peers: PeerServer[];
  clients: Set<Client>;
}

async function run(log: (message: string) => void, resources: Resources): Promise<SessionBenchResult> {
  const started = performance.now();
  const { peers, clients } = resources;
  log('starting the product (wrangler dev, local D1) …');
  const product = await startProduct();
  resources.product = product;
  const wsUrl = (base: string, sessionId: string) => `${product.url.replace(/^http/, 'ws')}${base}/ai/sessions/${sessionId}/ws`;

  const owner = await register(product.url, 'owner');
  const editor = await register(product.url, 'editor');
  const projectId = await importDemo(owner);
  const base = `/api/projects/${projectId}`;
  await owner.call('POST', `${base}/members`, { email: editor.email, role: 'editor' }, 201);

  const rows: ResultRow[] = [];
  const p95s: SessionBenchResult['p95'] = [];

  // -- fan-out: one comment.added to N subscribed sockets
  let fanoutPeer: PeerServer | undefined;
  for (const count of FANOUT_SOCKETS) {
    log(`fan-out to ${count} socket${count === 1 ? '' : 's'} …`);
    const sessionId = await stepSession(owner, base);
    const ours = await subscribedSockets(wsUrl(base, sessionId), owner.headers(), count, 'ours', clients);
    const commentsUrl = `${product.url}${base}/ai/sessions/${sessionId}/comments`;
    const oursSample: Sample = (n) => {
      const mark = marker('ours', 'fanout', n);
      return fanoutSample(ours, mark, () => post(commentsUrl, owner.headers(), { objectKey: STEP_KEY, line: 1, body: mark }, 201));
    };
    if (!fanoutPeer) {
      // The peer sends the very event shape ours sent, so both frames are the same size.
      const mark = marker('ours', 'fanout', 99_999);
      const first = ours[0]!.waitText((text) => text.includes(mark), 'the first comment.added', SAMPLE_TIMEOUT_MS);
      await post(commentsUrl, owner.headers(), { objectKey: STEP_KEY, line: 1, body: mark }, 201);
      const event = (JSON.parse((await first).text) as { events: EventTemplate[] }).events[0]!;
      fanoutPeer = await startFanoutPeer(event);
      peers.push(fanoutPeer);
    }
    const peerUrl = fanoutPeer.url;
    const peer = await subscribedSockets(peerUrl.replace(/^http/, 'ws'), owner.headers(), count, 'peer', clients);
    const peerSample: Sample = (n) => {
      const mark = marker('peer', 'fanout', n);
      return fanoutSample(peer, mark, () => post(`${peerUrl}/events`, owner.headers(), { objectKey: STEP_KEY, line: 1, body: mark }, 201));
    };
    const { row, p95 } = await measure({
      name: `fan-out of one event to ${count} socket${count === 1 ? '' : 's'}`,
      peer: `Node http + ws: POST appends to an in-memory log, then ${count === 1 ? 'one frame' : `the same frame to ${count} sockets`}`,
      ours: oursSample,
      reference: peerSample,
    });
    rows.push(row);
    p95s.push(p95);
    await closeAll([...ours, ...peer]);
    for (const client of [...ours, ...peer]) clients.delete(client);
  }

  // -- Yjs: an editor's insert reaches a second client
  log('Yjs update round trip …');
  const sessionId = await stepSession(owner, base);
  const step = await owner.call<{ step: { markdown: string } }>('GET', `${base}/workflows/${WORKFLOW}/steps/${STEP}`, undefined, 200);
  const staged = step.step.markdown.replace('## Goal\n\n', '## Goal\n\nStaged by bench/session.ts. ');
  await owner.call('POST', `${base}/ai/sessions/${sessionId}/stage`, {
    changeSet: {
      schemaVersion: '1.0',
      targetType: 'step',
      mode: 'optimize',
      operations: [{ op: 'upsert', targetType: 'step', target: { workflowId: WORKFLOW, nodeId: STEP }, payload: { stepMarkdown: staged }, reason: 'bench' }],
      impact: { objects: [STEP_KEY] },
    },
  }, 200);
  const yClients = async (url: string, side: string, editorHeaders: Record<string, string>, watcherHeaders: Record<string, string>) => {
    const a = new YClient((await connect(url, editorHeaders, `${side} Yjs editor`, clients)).client);
    const b = new YClient((await connect(url, watcherHeaders, `${side} Yjs watcher`, clients)).client);
    await Promise.all([a.sync(), b.sync()]);
    return { a, b };
  };
  const oursY = await yClients(wsUrl(base, sessionId), 'ours', editor.headers(), owner.headers());
  const yjsPeer = await startYjsPeer(Y.encodeStateAsUpdate(oursY.b.doc));
  peers.push(yjsPeer);
  const peerY = await yClients(yjsPeer.url.replace(/^http/, 'ws'), 'peer', editor.headers(), owner.headers());
  const { row, p95 } = await measure({
    name: 'Yjs update, editor → second client',
    peer: 'Node ws + y-protocols relay: one Y.Doc in memory, applies the update and sends it to the other socket',
    ours: (n) => yjsSample(oursY.a, oursY.b, marker('ours', 'yjs', n)),
    reference: (n) => yjsSample(peerY.a, peerY.b, marker('peer', 'yjs', n)),
  });
  rows.push(row);
  p95s.push(p95);
  return { rows, p95: p95s, seconds: (performance.now() - started) / 1000 };
}

/**
 * Runs the section and cleans up after itself whatever happens: every socket, both peers, the
 * product (wrangler, workerd, the temp persist dir). Throws with a readable message on failure.
 */
export async function sessionBench(log: (message: string) => void = (m) => console.error(`bench: ${m}`)): Promise<SessionBenchResult> {
  const resources: Resources = { peers: [], clients: new Set() };
  // wrangler runs in its own process group; exiting through process.exit lets startProduct's
  // exit hook kill it on Ctrl-C too (a signal's default action skips 'exit' handlers).
  const interrupted = (signal: NodeJS.Signals) => {
    console.error(`bench: ${signal}, stopping the product`);
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    return await withTimeout(run(log, resources), SECTION_TIMEOUT_MS, 'the session bench to finish');
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const full = resources.product?.output() ?? '';
    // wrangler dev rebuilds the Worker when a file it bundles changes, and a reload drops every socket.
    const reloaded = /Reloading local server/.test(full)
      ? '\nwrangler dev reloaded the Worker during the run (a source file it bundles changed), which closes every socket: run the bench again while no one edits the worker/, durable-objects/ or shared/ files.'
      : '';
    const output = full.split('\n').slice(-30).join('\n');
    throw new Error(`${message}${reloaded}${output ? `\nwrangler output (last lines):\n${output}` : ''}`, { cause: error });
  } finally {
    await closeAll(resources.clients);
    await Promise.all(resources.peers.map((p) => p.close().catch(() => undefined)));
    await resources.product?.stop();
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
  }
}

const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));

/** The section's printout: the rows as run.ts prints its own, the p95s, and what the two sides are. */
export function sessionReport(result: SessionBenchResult): string {
  const p95 = [
    '| case | ours, p95 ms | peer, p95 ms |',
    '|---|---:|---:|',
    ...result.p95.map((r) => `| ${r.name} | ${ms(r.ours)} | ${ms(r.peer)} |`),
  ];
  return [
    markdownTable(result.rows),
    '',
    ...p95,
    '',
    `The live channel: ours is the product under \`wrangler dev\` (its local proxy, workerd, local D1 and SQLite-backed Durable Objects on this machine), ` +
      'reached over loopback HTTP and `ws` sockets; the peer is a plain Node server in this process. Fan-out: from just before the HTTP request ' +
      '(ours: POST …/comments, which emits one comment.added) until the last subscribed socket has the event frame. Yjs: from text.insert on the ' +
      "editor's Y.Doc until the second client's Y.Doc has the inserted text. " +
      `${WARMUP} warm-up samples per side, then ${ROUNDS} rounds of ${PER_ROUND} per side; the ratio is the median of the round ratios.`,
    `Session section: ${result.seconds.toFixed(0)} s, product start included.`,
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    console.log(sessionReport(await sessionBench()));
  } catch (error) {
    console.error(`bench: the session bench failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
