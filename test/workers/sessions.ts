/**
 * Helpers for the AI session tests: a project imported from a test package, sessions made
 * through the API, and a socket watcher that records every frame and waits (bounded) for one.
 */
import { env, exports } from 'cloudflare:workers';
import { strToU8, zipSync, type Zippable } from 'fflate';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import { joinProject, ORIGIN, signedInClient, type TestClient } from './client.ts';
import { awarenessFrame } from '../../durable-objects/ai-session/sockets/awareness.ts';

export async function importExample(client: TestClient, name: keyof typeof env.TEST_PACKAGES): Promise<string> {
  const entries: Zippable = {};
  for (const [path, text] of Object.entries(env.TEST_PACKAGES[name])) entries[path] = strToU8(text);
  const form = new FormData();
  form.set('file', new File([new Uint8Array(zipSync(entries))], 'package.bmad', { type: 'application/zip' }));
  form.set('name', `${name} ${Math.random().toString(36).slice(2, 8)}`);
  const res = await exports.default.fetch(`${ORIGIN}/api/projects/import`, {
    method: 'POST',
    headers: { origin: ORIGIN, cookie: client.cookie! },
    body: form,
  });
  const json = (await res.json()) as { data: any; error: any };
  if (res.status !== 201) throw new Error(`import failed: ${JSON.stringify(json.error)}`);
  return json.data.project.id as string;
}

/** An owner with the two-workflows test package (support-desk) imported, and members on demand. */
export async function supportDeskProject() {
  const owner = await signedInClient('Owner');
  const projectId = await importExample(owner, 'two-workflows');
  const base = `/api/projects/${projectId}`;
  async function member(role: 'editor' | 'viewer', name = role === 'editor' ? 'Edith' : 'Victor') {
    const client = await signedInClient(name);
    await joinProject(owner, projectId, client, client.email, role);
    return client;
  }
  return { owner, projectId, base, member };
}

export const WF = 'ticket-triage';
export const STEP = 'classify-issue';

export async function stepSession(client: TestClient, base: string, extra: Record<string, unknown> = {}) {
  const res = await client.post(`${base}/ai/sessions`, { workflowId: WF, targetType: 'step', targetId: STEP, mode: 'optimize', ...extra });
  if (res.status !== 201) throw new Error(`create session failed: ${JSON.stringify(res.error)}`);
  return res.data.sessionId as string;
}

/** A project with one step session whose step is staged as `rewrite(its current markdown)`. */
export async function stagedStepSession(rewrite: (markdown: string) => string) {
  const project = await supportDeskProject();
  const sessionId = await stepSession(project.owner, project.base);
  const path = `${project.base}/ai/sessions/${sessionId}`;
  const markdown = rewrite((await currentStep(project.owner, project.base)).markdown);
  const staged = await project.owner.post(`${path}/stage`, { changeSet: stepChangeSet(markdown) });
  if (staged.status !== 200) throw new Error(`stage failed: ${JSON.stringify(staged.error)}`);
  return { ...project, sessionId, path, markdown };
}

/** A changeSet that rewrites one step's markdown. */
export function stepChangeSet(markdown: string, extra: Record<string, unknown> = {}) {
  return {
    schemaVersion: '1.0',
    targetType: 'step',
    mode: 'optimize',
    operations: [{ op: 'upsert', targetType: 'step', target: { workflowId: WF, nodeId: STEP }, payload: { stepMarkdown: markdown }, reason: 'clearer' }],
    impact: { objects: [`step:${WF}/${STEP}`] },
    ...extra,
  };
}

export async function currentStep(client: TestClient, base: string, nodeId = STEP) {
  const res = await client.get(`${base}/workflows/${WF}/steps/${nodeId}`);
  if (res.status !== 200) throw new Error(`read step failed: ${JSON.stringify(res.error)}`);
  return { ...(res.data.step as { markdown: string; path: string }), revision: res.data.revision as number };
}

export type Frame = { kind: 'text'; value: any } | { kind: 'binary'; value: Uint8Array };

/** A connected socket that records every frame. */
export class Watcher {
  readonly socket: WebSocket;
  readonly frames: Frame[] = [];
  closed: { code: number; reason: string } | null = null;
  readonly #waiters: Array<() => void> = [];

  constructor(socket: WebSocket) {
    this.socket = socket;
    // workerd hands binary frames to a client socket as Blobs; read them in arrival order.
    let order = Promise.resolve();
    socket.addEventListener('message', (event) => {
      const data = event.data as string | ArrayBuffer | Blob;
      order = order.then(async () => {
        if (typeof data === 'string') this.frames.push({ kind: 'text', value: JSON.parse(data) });
        else this.frames.push({ kind: 'binary', value: new Uint8Array(data instanceof Blob ? await data.arrayBuffer() : data) });
        this.#wake();
      });
    });
    socket.addEventListener('close', (event) => {
      order = order.then(() => {
        this.closed = { code: event.code, reason: event.reason };
        this.#wake();
      });
    });
  }

  #wake(): void {
    for (const waiter of this.#waiters.splice(0)) waiter();
  }

  texts(): any[] {
    return this.frames.filter((f) => f.kind === 'text').map((f) => f.value);
  }

  /** Every event received, in arrival order. */
  events(): any[] {
    return this.texts().filter((m) => m.type === 'events').flatMap((m) => m.events);
  }

  /** Wait until `check` returns a value (bounded: a socket never hangs a test). */
  async until<T>(check: () => T | undefined | false, what: string, timeoutMs = 8_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = check();
      if (value !== undefined && value !== null && value !== false) return value;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.texts()).slice(0, 2000)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  event(type: string, where: (e: any) => boolean = () => true) {
    return this.until(() => this.events().find((e) => e.type === type && where(e)), `event ${type}`);
  }

  send(value: unknown): void {
    this.socket.send(typeof value === 'string' ? value : JSON.stringify(value));
  }

  close(): void {
    if (this.closed === null) this.socket.close(1000, 'done');
  }
}

/**
 * The socket opens the co-editor as the app's draft editor does: it shares its cursor (its first
 * awareness state, under `clientId`), and only then receives the others'. Waits until the object
 * has taken it (an empty replay answers a hello sent after it on the same socket).
 */
export async function shareCursor(watcher: Watcher, clientId: number, name = 'Co-editor'): Promise<void> {
  const done = () => watcher.texts().filter((m) => m.type === 'events' && m.done).length;
  const before = done();
  watcher.socket.send(awarenessFrame(clientId, 1, { user: { name } }));
  watcher.send({ type: 'hello', lastSeq: Number.MAX_SAFE_INTEGER });
  await watcher.until(() => done() > before, 'the co-editor to join');
}

/** `query`: what a client may add to the address (`?_pk=…`: an attack, ignored by the server). */
/** The socket is still served: a presence frame of its own comes back naming its file, and it is open. */
export async function stillLive(watcher: Watcher, file: string): Promise<void> {
  watcher.send({ type: 'presence', file });
  await watcher.until(() => watcher.texts().find((m) => m.type === 'presence' && m.present.some((p: { file?: string }) => p.file === file)), `presence for ${file}`);
  if (watcher.closed !== null) throw new Error(`the socket closed: ${JSON.stringify(watcher.closed)}`);
}

export async function connect(client: TestClient, base: string, sessionId: string, lastSeq: number | null = 0, query = ''): Promise<Watcher> {
  const res = await exports.default.fetch(`${ORIGIN}${base}/ai/sessions/${sessionId}/ws${query}`, {
    headers: { upgrade: 'websocket', origin: ORIGIN, cookie: client.cookie! },
  });
  if (res.status !== 101 || !res.webSocket) throw new Error(`upgrade failed: ${res.status} ${await res.text()}`);
  const socket = res.webSocket;
  socket.accept();
  const watcher = new Watcher(socket);
  await watcher.until(() => watcher.texts().find((m) => m.type === 'hello'), 'hello');
  if (lastSeq !== null) watcher.send({ type: 'hello', lastSeq });
  return watcher;
}

/** A Yjs client over a watcher: applies the server's sync messages, sends its own edits. */
export class YClient {
  readonly doc = new Y.Doc();
  readonly #watcher: Watcher;
  #seen = 0;

  constructor(watcher: Watcher) {
    this.#watcher = watcher;
    this.doc.on('update', (update: Uint8Array, origin: unknown) => {
      if (origin === 'server') return;
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, 0);
      syncProtocol.writeUpdate(encoder, update);
      watcher.socket.send(encoding.toUint8Array(encoder));
    });
  }

  /** Process binary frames received so far (answering sync step 1 like y-websocket does). */
  pump(): void {
    const frames = this.#watcher.frames;
    for (; this.#seen < frames.length; this.#seen++) {
      const frame = frames[this.#seen]!;
      if (frame.kind !== 'binary') continue;
      const decoder = decoding.createDecoder(frame.value);
      if (decoding.readVarUint(decoder) !== 0) continue;
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, 0);
      syncProtocol.readSyncMessage(decoder, encoder, this.doc, 'server');
      if (encoding.length(encoder) > 1) this.#watcher.socket.send(encoding.toUint8Array(encoder));
    }
  }

  /** Ask the server for its whole state and wait until `check` holds on the local doc. */
  async sync<T>(check: (doc: Y.Doc) => T | undefined | false, what: string): Promise<T> {
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, 0);
    syncProtocol.writeSyncStep1(encoder, this.doc);
    this.#watcher.socket.send(encoding.toUint8Array(encoder));
    return this.#watcher.until(() => {
      this.pump();
      return check(this.doc);
    }, what);
  }

  text(key: string): Y.Text | undefined {
    const entry = this.doc.getMap<Y.Map<unknown>>('files').get(key);
    const text = entry?.get('text');
    return text instanceof Y.Text ? text : undefined;
  }
}

export async function tableSnapshot(projectId: string) {
  const q = (sql: string) => env.DB.prepare(sql).bind(projectId).all().then((r) => r.results);
  return {
    workflows: await q('SELECT id, name, workflow_md, graph_json, revision FROM workflows WHERE project_id = ? ORDER BY id'),
    steps: await q('SELECT workflow_id, node_id, path, markdown FROM workflow_steps WHERE project_id = ? ORDER BY workflow_id, node_id'),
    assets: await q('SELECT path, content, sha256 FROM assets WHERE project_id = ? ORDER BY path'),
    project: await q('SELECT agents_json, agents_revision, assets_revision FROM projects WHERE id = ?'),
    history: await q('SELECT count(*) AS n FROM revision_history WHERE project_id = ?'),
  };
}
