/**
 * The round-trip rows of `npm run bench` (issue 19; alone: `npm exec -- node bench/round-trips.ts`):
 * how many D1 round trips each hot path makes, read from the Worker's counting wrapper
 * (worker/db/instrumented-d1.ts) through the bench-only `GET /api/__bench/d1-round-trips` that the
 * product serves only while `D1_COUNT_ROUND_TRIPS` is "true"; then the hot paths timed with
 * 20 ms slept before every D1 call (`D1_INJECT_LATENCY_MS`) beside the same product without it.
 * The fan-out is printed twice: the comment POST → the last viewer (the POST's own who-is-asking
 * round trip included), and the fan-out itself, from the event's `at` (the object's clock when the
 * comment reached it) → the last viewer, which no D1 call may lengthen.
 * Three products in turn (counting, no latency, latency), each started and stopped by
 * runProductSection; every wait is bounded.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runProductSection } from './product-section.ts';
import type { ProductResources } from './product-section.ts';
import { BENCH_COMMENT_VARS, STEP, STEP_KEY, WORKFLOW, closeAll, importDemo, register, stepSession, subscribedSockets } from './session-clients.ts';
import type { ApiUser, Client } from './session-clients.ts';
import { marker, post, stageStep } from './session.ts';
import { median } from './table.ts';
import { ROOT, startProduct } from '../test/browser/product.ts';
import { startScriptedOpenAI } from '../test/support/scripted-openai/index.ts';
import type { ScriptedOpenAI } from '../test/support/scripted-openai/index.ts';
import { scriptModel, type ScriptStep } from '../test/workers/scripted-model.ts';

export const ROUND_TRIP_VARS = { D1_COUNT_ROUND_TRIPS: 'true', ...BENCH_COMMENT_VARS } as const;
export const INJECTED_LATENCY_MS = 20;
export const latencyVars = (ms = INJECTED_LATENCY_MS) => ({ D1_INJECT_LATENCY_MS: String(ms) });
const READ_OUT = '/api/__bench/d1-round-trips';
const SECTION_TIMEOUT_MS = 240_000;
const FINAL_ANSWER = JSON.stringify({ responseType: 'chat', assistantSummary: 'done' });
/** Samples per timed row under distance (after one warm-up). */
const SAMPLES = 9;
const FANOUT_SOCKETS = 100;
const TURN_ITERATIONS = 3;
/** The floor Worker (floor/worker.ts), started beside the timed products so floor (b)'s POST → 202 is timed in the same run. */
const FLOOR_CONFIG = path.join(ROOT, 'bench/floor/wrangler.jsonc');
/** How long the scripted model holds its first answer while a message's round trips are read (so the turn's own D1 work comes after). */
const MODEL_HOLD_MS = 2_000;

/** The hot paths and their goals (D1 round trips), as issue 19 lists them. */
export const HOT_PATHS = [
  { key: 'request', path: 'session request (cookie → user, role, session row)', goal: 1 },
  { key: 'iteration', path: 'tool iteration (nothing changed)', goal: 0 },
  { key: 'event', path: 'event (a comment.added, beyond its request)', goal: 0 },
  { key: 'create', path: 'create a session', goal: 2 },
  { key: 'stage', path: 'stage', goal: 2 },
  { key: 'validate', path: 'validate', goal: 2 },
  { key: 'apply', path: 'apply', goal: 2 },
  { key: 'save', path: 'Builder save (a step)', goal: 2 },
  { key: 'message', path: 'message POST from a login its session knows (its creator, socket open), until its 202', goal: 1 },
  { key: 'messageUnknown', path: 'message POST from a login its session does not know (here: just after a profile change), until its 202 (who is asking and the sender\'s AI profile)', goal: 1 },
] as const;
type HotPath = (typeof HOT_PATHS)[number]['key'];

export interface RoundTripResult {
  counts: Record<HotPath, number>;
  /** The SQL of each counted path (the start of each round trip), for the printout. */
  logs: Record<HotPath, string[]>;
  /** Median ms, without and with the injected latency. */
  distance: Record<'message' | 'floorMessage' | 'fanout' | 'fanoutFromObject' | 'turn', { plain: number; latency: number }>;
  seconds: number;
}

interface Resources extends ProductResources {
  model?: ScriptedOpenAI;
}

/** A signed-in owner with the demo package and an LLM profile on a scripted model of `iterations` tool calls. */
async function setUp(url: string, model: ScriptedOpenAI, label: string) {
  const owner = await register(url, label);
  const projectId = await importDemo(owner);
  const base = `/api/projects/${projectId}`;
  const readStep = { name: 'builder_step_read', arguments: { projectId, workflowId: WORKFLOW, nodeId: STEP } };
  /** The owner's profile pointed at a new scripted model playing `steps`. */
  const useScript = async (steps: ScriptStep[], name: string) => {
    const scripted = await scriptModel(model.url, steps, { name });
    await owner.call('PUT', '/api/users/me/llm-profile', { provider: 'openai-compatible', preset: 'custom', baseUrl: model.url, model: scripted.model, apiKey: 'sk-bench-rt', timeoutSeconds: 60, contextWindow: 128_000 }, 200);
  };
  const useTurnOf = (iterations: number) => useScript([...Array.from({ length: iterations }, () => ({ toolCalls: [readStep] })), { content: FINAL_ANSWER }], `rt${iterations}`);
  return { owner, projectId, base, useScript, useTurnOf };
}

/**
 * One comment to every socket: POST → the frame at the last socket (`whole`), and the event's `at`
 * → that same arrival (`fromObject`). `at` is the object's clock when the comment reached it
 * (workerd's clock stands still inside the object until its next I/O, and the comment is stored
 * before any), so `fromObject` leaves out only the Worker's part of the POST (who is asking, the
 * RPC). Both clocks count whole milliseconds: `fromObject` is good to about ±1 ms.
 */
async function fanoutSplit(sockets: readonly Client[], mark: string, trigger: () => Promise<void>): Promise<{ whole: number; fromObject: number }> {
  const arrivals = Promise.all(sockets.map((c) => c.waitText((text) => text.includes(mark), `the event ${mark}`, 10_000)));
  const start = performance.now();
  const [received] = await Promise.all([arrivals, trigger()]);
  const last = Math.max(...received.map((r) => r.at));
  // The wall clock in performance.now()'s terms, read now (not at process start: the two may drift).
  const wallOffset = Date.now() - performance.now();
  const event = (JSON.parse(received[0]!.text) as { events: Array<{ at: string }> }).events[0]!;
  return { whole: last - start, fromObject: last - (Date.parse(event.at) - wallOffset) };
}

/** One message, answered when the turn ends (`?wait=true`); its time from POST to the answer. */
async function turn(owner: ApiUser, base: string, sessionId: string, content: string): Promise<number> {
  const start = performance.now();
  const data = await owner.call<{ turn?: { status?: string } }>('POST', `${base}/ai/sessions/${sessionId}/messages?wait=true`, { content }, 200);
  const took = performance.now() - start;
  if (data.turn?.status && data.turn.status !== 'finished') throw new Error(`the bench turn ended ${data.turn.status}`);
  return took;
}

async function stepChange(owner: ApiUser, base: string, note: string) {
  const step = await owner.call<{ step: { markdown: string }; revision: number }>('GET', `${base}/workflows/${WORKFLOW}/steps/${STEP}`, undefined, 200);
  const markdown = step.step.markdown.replace('## Goal\n\n', `## Goal\n\n${note} `);
  const changeSet = {
    schemaVersion: '1.0',
    targetType: 'step',
    mode: 'optimize',
    operations: [{ op: 'upsert', targetType: 'step', target: { workflowId: WORKFLOW, nodeId: STEP }, payload: { stepMarkdown: markdown }, reason: 'bench' }],
    impact: { objects: [STEP_KEY] },
  };
  return { revision: step.revision, markdown, changeSet };
}

// ---- the counts -----------------------------------------------------------------------------

async function countHotPaths(log: (message: string) => void, resources: Resources): Promise<Pick<RoundTripResult, 'counts' | 'logs'>> {
  resources.model = await startScriptedOpenAI({ control: true });
  log('round trips: starting the product with D1_COUNT_ROUND_TRIPS …');
  const product = await startProduct({ vars: ROUND_TRIP_VARS });
  resources.product = product;
  const readOut = async () => {
    const res = await fetch(`${product.url}${READ_OUT}?reset=1`, { signal: AbortSignal.timeout(10_000) });
    if (res.status !== 200) throw new Error(`${READ_OUT} answered ${res.status}: the product does not count round trips`);
    return ((await res.json()) as { data: { roundTrips: number; log: string[] } }).data;
  };
  const { owner, base, useScript, useTurnOf } = await setUp(product.url, resources.model, 'rt-count');
  const counts = {} as Record<HotPath, number>;
  const logs = {} as Record<HotPath, string[]>;
  const counted = async <T>(key: HotPath | null, run: () => Promise<T>): Promise<T> => {
    await readOut();
    const result = await run();
    const read = await readOut();
    if (key) {
      counts[key] = read.roundTrips;
      logs[key] = read.log;
    }
    return result;
  };
  // Twice, the first warm-up (a fresh isolate's first request of a kind is not what a user pays); the second counts.
  for (const pass of [0, 1]) {
    const key = <K extends HotPath>(k: K) => (pass === 1 ? k : null);
    const sessionId = await counted(key('create'), () => stepSession(owner, base));
    const path = `${base}/ai/sessions/${sessionId}`;
    await counted(key('request'), () => owner.call('PATCH', path, { tokenBudget: 50_000 }, 200));
    const change = await stepChange(owner, base, `Round trips ${pass}.`);
    const staged = await counted(key('stage'), () => owner.call<{ changeSetId: string; contentHash: string }>('POST', `${path}/stage`, { changeSet: change.changeSet }, 200));
    // A comment needs a staged file to sit on.
    await counted(key('event'), () => owner.call('POST', `${path}/comments`, { objectKey: STEP_KEY, line: 1, body: `round trips ${pass}` }, 201));
    await counted(key('validate'), () => owner.call('POST', `${path}/validate`, { changeSetId: staged.changeSetId }, 200));
    await counted(key('apply'), () =>
      owner.call('POST', `${path}/apply`, { changeSetId: staged.changeSetId, contentHash: staged.contentHash, confirmSource: 'ui_manual_apply', revisionBase: { workflowRevision: change.revision } }, 200),
    );
    const saved = await stepChange(owner, base, `Saved ${pass}.`);
    await counted(key('save'), () => owner.call('PUT', `${base}/workflows/${WORKFLOW}/steps/${STEP}`, { markdown: saved.markdown, baseRevision: saved.revision }, 200));
  }
  // A message until its 202, the model holding its answer meanwhile so the turn's own D1 work
  // (its audit rows, at its end) comes after the read; anything the object asked D1 before then counts.
  for (const pass of [0, 1]) {
    await useScript([{ reply: { content: FINAL_ANSWER }, delayMs: MODEL_HOLD_MS }], `rt-hold-${pass}`);
    const sessionId = await stepSession(owner, base);
    const wsUrl = `${product.url.replace(/^http/, 'ws')}${base}/ai/sessions/${sessionId}/ws`;
    const [viewer] = await subscribedSockets(wsUrl, owner.headers(), 1, `rt count message ${pass}`, resources.clients);
    const finished = viewer!.waitText((text) => /"type":"turn\.(finished|failed)"/.test(text), 'the end of the held turn', MODEL_HOLD_MS + 20_000);
    await counted(pass === 1 ? 'message' : null, () => owner.call('POST', `${base}/ai/sessions/${sessionId}/messages`, { content: `count message ${pass}` }, 202));
    await finished;
    // The same session's next message just after the sender saved a profile: the object forgot them, the Worker asks D1.
    // (A script's step k answers a conversation with k assistant turns: the held answer at each.)
    await useScript(Array.from({ length: 4 }, () => ({ reply: { content: FINAL_ANSWER }, delayMs: MODEL_HOLD_MS })), `rt-hold-again-${pass}`);
    const again = viewer!.waitText((text) => /"type":"turn\.(finished|failed)"/.test(text), 'the end of the second held turn', MODEL_HOLD_MS + 20_000);
    await counted(pass === 1 ? 'messageUnknown' : null, () => owner.call('POST', `${base}/ai/sessions/${sessionId}/messages`, { content: `count message again ${pass}` }, 202));
    await again;
    await closeAll([viewer!]);
    resources.clients.delete(viewer!);
  }
  // The event: what a comment costs beyond the request that carries it (the caller's check).
  counts.event -= counts.request;
  // A tool iteration: a turn of 3 tool calls minus a turn of 1, over 2 (each the first turn of a new session).
  const turnTrips: Record<number, number> = {};
  for (const iterations of [1, 3, 1, 3]) {
    await useTurnOf(iterations);
    const sessionId = await stepSession(owner, base);
    await counted(null, async () => undefined);
    await turn(owner, base, sessionId, `count ${iterations}`);
    const read = await readOut();
    turnTrips[iterations] = read.roundTrips;
    if (iterations === 3) logs.iteration = read.log;
  }
  counts.iteration = (turnTrips[3]! - turnTrips[1]!) / 2;
  return { counts, logs };
}

// ---- under distance -------------------------------------------------------------------------

async function timeHotPaths(log: (message: string) => void, resources: Resources, vars: Record<string, string>, label: string) {
  resources.model = await startScriptedOpenAI({ control: true });
  log(`round trips: starting the product ${label} …`);
  const product = await startProduct({ vars: { ...BENCH_COMMENT_VARS, ...vars }, floorConfig: FLOOR_CONFIG });
  resources.product = product;
  const ws = product.url.replace(/^http/, 'ws');
  const { owner, base, useTurnOf } = await setUp(product.url, resources.model, 'rt-time');

  // floor (b)'s POST → 202 through the same wrangler dev and service-binding hop: the least any POST
  // costs here before a D1 round trip is added (it asks D1 nothing).
  const floorMessage: number[] = [];
  for (let n = 0; n <= SAMPLES; n++) {
    const start = performance.now();
    await post(`${product.url}/__floor/post/rt-message/messages`, owner.headers(), { content: marker('peer', 'rt-message', n) }, 202);
    if (n > 0) floorMessage.push(performance.now() - start);
  }
  const sessionWs = (sessionId: string) => `${ws}${base}/ai/sessions/${sessionId}/ws`;

  // message → 202: each the first message of a new session (one tool call, then the answer; the end awaited untimed).
  await useTurnOf(1);
  const message: number[] = [];
  for (let n = 0; n <= SAMPLES; n++) {
    const sessionId = await stepSession(owner, base);
    const [viewer] = await subscribedSockets(sessionWs(sessionId), owner.headers(), 1, `rt message ${n}`, resources.clients);
    const finished = viewer!.waitText((text) => /"type":"turn\.(finished|failed)"/.test(text), 'the end of the turn', 20_000);
    const start = performance.now();
    await post(`${product.url}${base}/ai/sessions/${sessionId}/messages`, owner.headers(), { content: marker('ours', 'rt-message', n) }, 202);
    if (n > 0) message.push(performance.now() - start);
    await finished;
    await closeAll([viewer!]);
    resources.clients.delete(viewer!);
  }

  // fan-out of one comment.added to 100 subscribed sockets.
  const sessionId = await stepSession(owner, base);
  await stageStep(owner, base, sessionId);
  const sockets = await subscribedSockets(sessionWs(sessionId), owner.headers(), FANOUT_SOCKETS, 'rt fan-out', resources.clients);
  const fanout: number[] = [];
  const fanoutFromObject: number[] = [];
  for (let n = 0; n <= SAMPLES; n++) {
    const mark = marker('ours', 'rt-fanout', n);
    const took = await fanoutSplit(sockets, mark, () => post(`${product.url}${base}/ai/sessions/${sessionId}/comments`, owner.headers(), { objectKey: STEP_KEY, line: 1, body: mark }, 201));
    if (n > 0) {
      fanout.push(took.whole);
      fanoutFromObject.push(took.fromObject);
    }
  }
  await closeAll(sockets);
  for (const socket of sockets) resources.clients.delete(socket);

  // a scripted turn of 3 tool iterations, POST → the answer of `?wait=true`.
  await useTurnOf(TURN_ITERATIONS);
  const turns: number[] = [];
  for (let n = 0; n <= SAMPLES; n++) {
    const took = await turn(owner, base, await stepSession(owner, base), marker('ours', 'rt-turn', n));
    if (n > 0) turns.push(took);
  }
  return { message: median(message), floorMessage: median(floorMessage), fanout: median(fanout), fanoutFromObject: median(fanoutFromObject), turn: median(turns) };
}

// ---- the section ----------------------------------------------------------------------------

const section = <T>(name: string, run: (resources: Resources) => Promise<T>): Promise<T> => {
  const resources: Resources = { peers: [], clients: new Set() };
  return runProductSection(name, resources, SECTION_TIMEOUT_MS, () => run(resources), async () => {
    await resources.model?.close().catch(() => undefined);
  });
};

export async function roundTripBench(log: (message: string) => void = (m) => console.error(`bench: ${m}`)): Promise<RoundTripResult> {
  const started = performance.now();
  const counted = await section('the round-trip counts', (r) => countHotPaths(log, r));
  log(`round trips: ${HOT_PATHS.map((p) => `${p.key} ${counted.counts[p.key]}`).join(', ')}`);
  const plain = await section('the hot paths without latency', (r) => timeHotPaths(log, r, {}, 'without injected latency'));
  const latency = await section('the hot paths under distance', (r) => timeHotPaths(log, r, latencyVars(), `with ${INJECTED_LATENCY_MS} ms per D1 call`));
  const distance = {
    message: { plain: plain.message, latency: latency.message },
    floorMessage: { plain: plain.floorMessage, latency: latency.floorMessage },
    fanout: { plain: plain.fanout, latency: latency.fanout },
    fanoutFromObject: { plain: plain.fanoutFromObject, latency: latency.fanoutFromObject },
    turn: { plain: plain.turn, latency: latency.turn },
  };
  return { ...counted, distance, seconds: (performance.now() - started) / 1000 };
}

const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(1));
const mark = (ok: boolean) => (ok ? 'met' : 'missed');

export function roundTripReport(result: RoundTripResult): string {
  const { counts, distance } = result;
  const turnRatio = distance.turn.latency / distance.turn.plain;
  return [
    '| hot path | D1 round trips, ours | after who-is-asking | goal | |',
    '|---|---:|---:|---:|---|',
    ...HOT_PATHS.map((p) => {
      const after = p.key === 'request' || p.key === 'event' || p.key === 'iteration' || p.key === 'message' || p.key === 'messageUnknown' ? '–' : String(counts[p.key] - counts.request);
      const verdict = counts[p.key] <= p.goal ? 'met' : after !== '–' && Number(after) <= p.goal ? 'missed (met after who-is-asking)' : 'missed';
      return `| ${p.path} | ${counts[p.key]} | ${after} | ${p.goal} | ${verdict} |`;
    }),
    '',
    `| hot path | without latency, median ms | with ${INJECTED_LATENCY_MS} ms per D1 call, median ms | goal | |`,
    '|---|---:|---:|---|---|',
    `| message POST → 202 | ${ms(distance.message.plain)} | ${ms(distance.message.latency)} | ≤ 30 ms | ${mark(distance.message.latency <= 30)} |`,
    `| floor (b)'s POST → 202 in the same wrangler dev (no D1 at all), and the same plus one ${INJECTED_LATENCY_MS} ms round trip | ${ms(distance.floorMessage.plain)} | ${ms(distance.floorMessage.latency + INJECTED_LATENCY_MS)} | – | the least a message with one D1 round trip costs on this machine |`,
    `| fan-out of one event to ${FANOUT_SOCKETS} sockets (the event stored in the object → the last viewer) | ${ms(distance.fanoutFromObject.plain)} | ${ms(distance.fanoutFromObject.latency)} | ≤ 10 ms | ${mark(distance.fanoutFromObject.latency <= 10)} |`,
    `| the same, from the comment POST (its one who-is-asking D1 round trip included) → the last viewer | ${ms(distance.fanout.plain)} | ${ms(distance.fanout.latency)} | – | |`,
    `| a scripted ${TURN_ITERATIONS}-iteration turn (POST → answer of ?wait=true) | ${ms(distance.turn.plain)} | ${ms(distance.turn.latency)} (${turnRatio.toFixed(2)}×) | ≤ 2× | ${mark(turnRatio <= 2)} |`,
    '',
    `Round trips: counted by the Worker's D1 wrapper (the Worker and the session objects share one isolate), read through ${READ_OUT}, ` +
      'each path driven once to warm up and once counted; the session request is a PATCH of the session (who is asking, the role, the session row); ' +
      `the message is a new session's first message until its 202 (the model holds its answer ${MODEL_HOLD_MS / 1000} s, so the turn's own D1 work comes after the read); ` +
      'the event is a comment POST minus its request; a tool iteration is (a 3-tool-call turn − a 1-tool-call turn) ÷ 2, each the first turn of a new session. ' +
      `Under distance: ${SAMPLES} samples per row after one warm-up, the same product started twice (beside the floor Worker, whose POST-then-emit object is timed in both; the floor Worker owns the port, so every request of both sides pays its one service-binding hop, as in the floor rows), with and without D1_INJECT_LATENCY_MS=${INJECTED_LATENCY_MS}. ` +
      'The fan-out is a comment to 100 subscribed sockets, timed twice: from the event\'s `at` (the object\'s clock when the comment reached it; ' +
      'workerd\'s clock stands still inside the object until its next I/O, whole milliseconds, so ±1 ms) to the last viewer — the fan-out itself, ' +
      'storage commit and 100 sends, no D1 on it — and from the POST, which first asks D1 who is asking (one round trip, the injected latency once). ' +
      `Section: ${result.seconds.toFixed(0)} s, three product starts included.`,
    '',
    'What each counted path asked D1 (the start of each round trip):',
    ...HOT_PATHS.flatMap((p) => [`- ${p.path}:`, ...(result.logs[p.key] ?? []).map((sql) => `  - \`${sql.replace(/\s+/g, ' ').slice(0, 120)}\``)]),
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    console.log(roundTripReport(await roundTripBench()));
  } catch (error) {
    console.error(`bench: the round-trip bench failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
