/**
 * The live channel's rows of `npm run bench` (run.ts calls `sessionBench` after the CPU rows;
 * alone: `npm exec -- node bench/session.ts`): one session event fanned out to 1 / 10 / 100
 * sockets, and a Yjs update's trip from one client to another. Ours is the real product under
 * `wrangler dev` (workerd, local D1, the session Durable Object), driven over HTTP and `ws`
 * sockets exactly as the SPA does; the peer is a plain in-process Node server (session-peer.ts)
 * measured the same way in the same run. Every wait is bounded; a failure throws with the
 * product's recent output, after every socket, server and process this file started is closed.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as Y from 'yjs';
import { runProductSection } from './product-section.ts';
import type { ProductResources } from './product-section.ts';
import { BENCH_COMMENT_VARS, STEP, STEP_KEY, WORKFLOW, YClient, closeAll, connect, importDemo, joinProject, register, stepSession, subscribedSockets } from './session-clients.ts';
import type { Client } from './session-clients.ts';
import { startFanoutPeer, startYjsPeer } from './session-peer.ts';
import type { EventTemplate, PeerServer } from './session-peer.ts';
import { markdownTable, median, pairedRow } from './table.ts';
import type { ResultRow } from './table.ts';
import { startProduct } from '../test/browser/product.ts';

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
/** The whole section, product start included: a stuck wait can never hang `npm run bench`. */
const SECTION_TIMEOUT_MS = 240_000;

export interface SessionBenchResult {
  rows: ResultRow[];
  /** p95 of the pooled samples, per row. */
  p95: Array<{ name: string; ours: number; peer: number }>;
  seconds: number;
}

// ---- small helpers --------------------------------------------------------------------------


export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Same length on both sides, unique per sample, so a frame is recognised by a substring search. */
export const marker = (side: 'ours' | 'peer', kind: string, n: number) => `bench-${kind}-${side}-${String(n).padStart(5, '0')}`;

// ---- measurement ----------------------------------------------------------------------------

export type Sample = (n: number) => Promise<number>;

export interface Case {
  name: string;
  peer: string;
  ours: Sample;
  reference: Sample;
}

/** How many samples a case takes: warm-ups per side, then rounds of `perRound` per side. */
export interface Plan {
  warmup: number;
  rounds: number;
  perRound: number;
}

export async function measure(
  c: Case,
  { warmup, rounds, perRound }: Plan = { warmup: WARMUP, rounds: ROUNDS, perRound: PER_ROUND },
): Promise<{ row: ResultRow; p95: { name: string; ours: number; peer: number } }> {
  let n = 0;
  for (let i = 0; i < warmup; i++) {
    await c.ours(n++);
    await c.reference(n++);
  }
  const samples = { ours: [] as number[], peer: [] as number[] };
  const roundRatios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const inRound = { ours: [] as number[], peer: [] as number[] };
    for (const side of round % 2 === 0 ? (['ours', 'peer'] as const) : (['peer', 'ours'] as const)) {
      const sample = side === 'ours' ? c.ours : c.reference;
      for (let i = 0; i < perRound; i++) inRound[side].push(await sample(n++));
    }
    samples.ours.push(...inRound.ours);
    samples.peer.push(...inRound.peer);
    roundRatios.push(median(inRound.ours) / median(inRound.peer));
  }
  return {
    row: pairedRow(c.name, c.peer, samples, roundRatios),
    p95: { name: c.name, ours: percentile(samples.ours, 95), peer: percentile(samples.peer, 95) },
  };
}

/** Request → the last of `clients` has the frame carrying `mark`; the response is awaited too. */
export async function fanoutSample(clients: readonly Client[], mark: string, trigger: () => Promise<void>): Promise<number> {
  const arrivals = Promise.all(clients.map((c) => c.waitText((text) => text.includes(mark), `the event ${mark}`, SAMPLE_TIMEOUT_MS)));
  const start = performance.now();
  const [received] = await Promise.all([arrivals, trigger()]);
  return Math.max(...received.map((r) => r.at)) - start;
}

export async function post(url: string, headers: Record<string, string>, body: unknown, expect: number): Promise<void> {
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
export async function yjsSample(a: YClient, b: YClient, mark: string): Promise<number> {
  const text = a.text();
  if (!text) throw new Error(`${a.client.label} lost the staged text`);
  const at = text.toString().indexOf('## Goal');
  const seen = b.until(() => b.text()?.toString().includes(mark) === true, `the inserted ${mark}`, SAMPLE_TIMEOUT_MS);
  const start = performance.now();
  text.insert(Math.max(at, 0), `${mark}\n`);
  return (await seen) - start;
}

/** Stages a small rewrite of the bench's step in the session (what comments and co-edits work on). */
export async function stageStep(owner: Awaited<ReturnType<typeof register>>, base: string, sessionId: string): Promise<void> {
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
}

// ---- the section ----------------------------------------------------------------------------

async function run(log: (message: string) => void, resources: ProductResources): Promise<SessionBenchResult> {
  const started = performance.now();
  const { peers, clients } = resources;
  log('starting the product (wrangler dev, local D1) …');
  const product = await startProduct({ vars: BENCH_COMMENT_VARS });
  resources.product = product;
  const wsUrl = (base: string, sessionId: string) => `${product.url.replace(/^http/, 'ws')}${base}/ai/sessions/${sessionId}/ws`;

  const owner = await register(product.url, 'owner');
  const editor = await register(product.url, 'editor');
  const projectId = await importDemo(owner);
  const base = `/api/projects/${projectId}`;
  await joinProject(owner, projectId, editor, 'editor');

  const rows: ResultRow[] = [];
  const p95s: SessionBenchResult['p95'] = [];

  // -- fan-out: one comment.added to N subscribed sockets
  let fanoutPeer: PeerServer | undefined;
  for (const count of FANOUT_SOCKETS) {
    log(`fan-out to ${count} socket${count === 1 ? '' : 's'} …`);
    const sessionId = await stepSession(owner, base);
    // A comment is anchored to a line of the staged draft, so the session stages the step first.
    await stageStep(owner, base, sessionId);
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
  await stageStep(owner, base, sessionId);
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
  const resources: ProductResources = { peers: [], clients: new Set() };
  return runProductSection('the session bench', resources, SECTION_TIMEOUT_MS, () => run(log, resources));
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
