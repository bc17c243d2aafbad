/**
 * The clients bench/session.ts drives the product with, as the SPA does: `ApiUser` and its calls
 * over HTTP (register, import the demo package, open a step session), `ws` sockets that hand frames
 * to bounded waiters (`Client`, `connect`, `subscribedSockets`, `closeAll`) and a y-protocols client
 * (`YClient`). The same clients talk to the peers of session-peer.ts. Every wait is bounded.
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import { WebSocket } from 'ws';
import { bytesOf } from './session-peer.ts';
import { YJS_MESSAGE } from '../shared/protocol.ts';
import { ROOT } from '../test/browser/product.ts';

/** Opening a socket up to its hello, subscribing, syncing a Y.Doc, one API call. */
const STEP_TIMEOUT_MS = 15_000;
/** Opening this many sockets at once (each is a Worker request with D1 reads, then the DO). */
const CONNECT_BATCH = 10;

const DEMO_PACKAGE = path.join(ROOT, 'scripts/demo-package');
/** The demo package's workflow and step the bench opens its step sessions on. */
export const WORKFLOW = 'vendor-intake';
export const STEP = 'capture-request';
export const STEP_KEY = `step:${WORKFLOW}/${STEP}`;
const PASSWORD = 'bench-password-123';

/** `promise`, or a rejection naming `what` once `ms` have passed; the timer never outlives it. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms / 1000} s waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// ---- the product's API ----------------------------------------------------------------------

/** A signed-in user of the product: the session cookie, sent with the same-origin `Origin`. */
export class ApiUser {
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
export async function register(baseUrl: string, label: string): Promise<ApiUser> {
  users += 1;
  const user = new ApiUser(baseUrl, `bench-${label}-${Date.now().toString(36)}${users}@example.test`);
  await user.call('POST', '/api/auth/register', { name: `Bench ${label}`, email: user.email, password: PASSWORD }, 201);
  return user;
}

/** The demo package (scripts/demo-package), imported as a .bmad zip the way an author would. */
export async function importDemo(owner: ApiUser, name = 'Bench: vendor onboarding'): Promise<string> {
  const entries: Record<string, Uint8Array> = {};
  for (const entry of await readdir(DEMO_PACKAGE, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.relative(DEMO_PACKAGE, path.join(entry.parentPath, entry.name));
    if (file !== 'README.md') entries[file] = strToU8(await readFile(path.join(DEMO_PACKAGE, file), 'utf8'));
  }
  const form = new FormData();
  form.set('file', new Blob([zipSync(entries)], { type: 'application/zip' }), 'package.bmad');
  form.set('name', name);
  const data = await owner.call<{ project: { id: string } }>('POST', '/api/projects/import', form, 201);
  return data.project.id;
}

/** `invitee` joins the owner's project in `role`: the owner invites their email, they accept. */
export async function joinProject(owner: ApiUser, projectId: string, invitee: ApiUser, role: 'editor' | 'viewer'): Promise<void> {
  const { invitation } = await owner.call<{ invitation: { id: string } }>('POST', `/api/projects/${projectId}/members`, { email: invitee.email, role }, 201);
  await invitee.call('POST', `/api/users/me/invitations/${invitation.id}/accept`, {}, 200);
}

export async function stepSession(owner: ApiUser, base: string): Promise<string> {
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
export class Client {
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
export async function connect(url: string, headers: Record<string, string>, label: string, clients: Set<Client>): Promise<{ client: Client; lastSeq: number }> {
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
export async function subscribedSockets(url: string, headers: Record<string, string>, count: number, label: string, clients: Set<Client>): Promise<Client[]> {
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

export async function closeAll(clients: Iterable<Client>): Promise<void> {
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
export class YClient {
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

/**
 * The product's `--var`s for rows that send hundreds of comments as one person (fan-out samples, the
 * 1,000 events a resume misses) and open up to 100 sockets as that person: the per-person comment
 * rate (30 a minute, durable-objects/ai-session/review/comment-rate.ts, one Map lookup per comment)
 * and socket cap (8, sockets/admission.ts, one count per connect) would refuse them.
 */
export const BENCH_COMMENT_VARS = { AI_COMMENTS_PER_MINUTE: '1000000', AI_SOCKETS_PER_PERSON: '200' } as const;
