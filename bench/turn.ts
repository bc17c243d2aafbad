/**
 * The AI turn's rows of `npm run bench` (run.ts calls `turnBench` after the live channel's rows;
 * alone: `npm exec -- node bench/turn.ts`): what the product's tool loop costs per iteration once
 * the model's own time is taken out, and how soon a viewer hears of a message. Ours is the real
 * product under `wrangler dev` (the Worker, the session Durable Object's turn runner, local D1)
 * with a profile pointing at the scripted OpenAI-compatible server in this process. Two references
 * run the same bare `openai` SDK loop (bare-loop.ts) against the same server and script: the peer,
 * in Node behind a Node `http` + `ws` relay (turn-peer.ts), and the floor, a Durable Object in the
 * same workerd as the product (floor/worker.ts, started by the same `wrangler dev`), which pays the
 * same hop to the model server and the same sockets. All three are driven and timed the same way,
 * in rounds, from this process's sockets.
 * Every wait is bounded; a failure throws after everything this file started is closed.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { runProductSection } from './product-section.ts';
import type { ProductResources } from './product-section.ts';
import { STEP, WORKFLOW, closeAll, importDemo, joinProject, register, stepSession, subscribedSockets } from './session-clients.ts';
import type { EventTemplate } from './session-peer.ts';
import { markdownTable, median, pairedRow } from './table.ts';
import type { ResultRow } from './table.ts';
import { ModelClock } from './model-clock.ts';
import { REQUESTS, SAMPLE_TIMEOUT_MS, TOOL_ITERATIONS, eventsOf, postMessage, turnSample } from './turn-sample.ts';
import type { Sockets, TurnSample } from './turn-sample.ts';
import { startTurnPeer } from './turn-peer.ts';
import { startScriptedOpenAI } from '../test/support/scripted-openai/index.ts';
import type { ScriptedOpenAI } from '../test/support/scripted-openai/index.ts';
import { ROOT, startProduct } from '../test/browser/product.ts';

const FINAL_ANSWER = JSON.stringify({ responseType: 'chat', assistantSummary: 'done' });
const API_KEY = 'sk-bench-turn';
const FLOOR_CONFIG = path.join(ROOT, 'bench/floor/wrangler.jsonc');
/**
 * WARMUP turns per side, then ROUNDS rounds of PER_ROUND turns per side, the sides back to back
 * (the order rotating each round) like session.ts; the ratio is the median of the round ratios.
 * Ours opens a new step session per turn (so each turn is a session's first, as when an author
 * opens the AI panel), which with the product's start keeps the section near a minute.
 */
const WARMUP = 2;
/** Nine rounds: with five, the loop row's median moved 1.3–1.6× between runs on the same code. */
const ROUNDS = 9;
const PER_ROUND = 6;
/** The whole section, product start included: a stuck wait can never hang `npm run bench`. */
const SECTION_TIMEOUT_MS = 240_000;

// ---- measurement ----------------------------------------------------------------------------

type SideName = 'ours' | 'peer' | 'floor' | 'stored';
const SIDES: readonly SideName[] = ['ours', 'peer', 'floor', 'stored'];
type Side = (n: number) => Promise<TurnSample>;
type BySide<T> = Record<SideName, T>;
/** Same length on both sides, unique per turn, so turn.accepted is recognised by a substring search. */
const marker = (side: SideName, n: number) => `bench-turn-${side}-${String(n).padStart(5, '0')}`;

const METRICS = [
  {
    key: 'perIteration',
    name: `turn orchestration per iteration (POST → turn.finished, minus model time, ÷ ${REQUESTS} requests)`,
    peer: `bare \`openai\` SDK loop in Node (stream, assemble tool calls, in-process tool, role=tool messages) behind a Node http + ws relay; same script, same frames`,
  },
  {
    key: 'loopPerIteration',
    name: `loop orchestration per iteration (first llm.requested → turn.finished, minus model time, ÷ ${REQUESTS})`,
    peer: 'the same turns of the same peer',
  },
  { key: 'answered', name: 'message POST → 202', peer: 'Node http: JSON.parse, one event appended in memory and sent, 202' },
  { key: 'accepted', name: 'message POST → turn.accepted at a viewer socket', peer: 'the same relay: the event frame to the subscribed viewer' },
  { key: 'firstRequest', name: 'message POST → first llm.requested at a viewer socket', peer: 'the same relay, then the loop emits llm.requested before its SDK call' },
] as const satisfies ReadonlyArray<{ key: keyof TurnSample; name: string; peer: string }>;

/** The same turns of ours beside the floors in the same workerd: the goal rows. */
const FLOOR_METRICS = [
  {
    against: 'floor',
    key: 'perIteration',
    name: `turn orchestration per iteration, vs the floor in the same workerd (goal ≤ 1.5×)`,
    peer: `floor (d): the same bare \`openai\` loop in a Durable Object beside the product (bench/floor/worker.ts), no storage; same script, same frames, same hop to the model server`,
  },
  {
    against: 'floor',
    key: 'loopPerIteration',
    name: `loop orchestration per iteration, vs the floor in the same workerd (goal ≤ 1.5×)`,
    peer: 'the same turns of the same floor',
  },
  {
    against: 'stored',
    key: 'perIteration',
    name: `turn orchestration per iteration, vs the floor storing its events`,
    peer: `floor (d) storing each event as one SQLite row before its frame, as floor (b) does: the least a resumable event log does (ours also checkpoints the turn)`,
  },
  {
    against: 'stored',
    key: 'loopPerIteration',
    name: `loop orchestration per iteration, vs the floor storing its events`,
    peer: 'the same turns of the same floor',
  },
] as const satisfies ReadonlyArray<{ against: SideName; key: keyof TurnSample; name: string; peer: string }>;

export interface TurnBenchResult {
  rows: ResultRow[];
  /** Medians of the pooled samples that are not ratio rows. */
  medians: BySide<{ total: number; model: number; reportedModel: number; answered: number; firstRequest: number; answeredToAccepted: number }>;
  /** The product's tool result and prompt, for the printout. */
  sizes: { toolResultChars: number; promptChars: number; toolsChars: number };
  seconds: number;
}

async function measure(sides: BySide<Side>): Promise<{ samples: BySide<TurnSample[]>; rounds: Array<BySide<TurnSample[]>> }> {
  let n = 0;
  for (let i = 0; i < WARMUP; i++) for (const side of SIDES) await sides[side](n++);
  const rounds: Array<BySide<TurnSample[]>> = [];
  for (let round = 0; round < ROUNDS; round++) {
    const inRound: BySide<TurnSample[]> = { ours: [], peer: [], floor: [], stored: [] };
    const order = [...SIDES.slice(round % SIDES.length), ...SIDES.slice(0, round % SIDES.length)];
    for (const side of order) for (let i = 0; i < PER_ROUND; i++) inRound[side].push(await sides[side](n++));
    rounds.push(inRound);
  }
  const samples: BySide<TurnSample[]> = { ours: [], peer: [], floor: [], stored: [] };
  for (const side of SIDES) samples[side] = rounds.flatMap((r) => r[side]);
  return { samples, rounds };
}

// ---- the section ----------------------------------------------------------------------------

/** What the section has started beyond the product, its peer and sockets, for the cleanup. */
interface Resources extends ProductResources {
  model?: ScriptedOpenAI;
  clock?: ModelClock;
}

async function scriptModel(model: ScriptedOpenAI, steps: unknown[]): Promise<string> {
  const res = await fetch(`${model.url.replace(/\/v1$/, '')}/_scripted/scripts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ steps, name: 'bench-turn' }),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`the scripted server refused the script (${res.status}): ${text.slice(0, 500)}`);
  return (JSON.parse(text) as { model: string }).model;
}

async function run(log: (message: string) => void, resources: Resources): Promise<TurnBenchResult> {
  const started = performance.now();
  const { clients } = resources;
  const scripted = await startScriptedOpenAI({ control: true });
  resources.model = scripted;
  const clock = new ModelClock(scripted.port);
  resources.clock = clock;
  log('starting the product (wrangler dev, local D1) …');
  const product = await startProduct({ floorConfig: FLOOR_CONFIG });
  resources.product = product;

  const owner = await register(product.url, 'turn-owner');
  const viewer = await register(product.url, 'turn-viewer');
  const projectId = await importDemo(owner);
  const base = `/api/projects/${projectId}`;
  await joinProject(owner, projectId, viewer, 'viewer');
  const readStep = { name: 'builder_step_read', arguments: { projectId, workflowId: WORKFLOW, nodeId: STEP } };
  const model = await scriptModel(scripted, [...Array.from({ length: TOOL_ITERATIONS }, () => ({ toolCalls: [readStep] })), { content: FINAL_ANSWER }]);
  await owner.call(
    'PUT',
    '/api/users/me/llm-profile',
    { provider: 'openai-compatible', preset: 'custom', baseUrl: scripted.url, model, apiKey: API_KEY, timeoutSeconds: 60, contextWindow: 128_000 },
    200,
  );

  const wsUrl = (sessionId: string) => `${product.url.replace(/^http/, 'ws')}${base}/ai/sessions/${sessionId}/ws`;
  /** A new step session, the sender's and the viewer's sockets subscribed; untimed. */
  const openSession = async (n: number) => {
    const sessionId = await stepSession(owner, base);
    const [sender, seen] = await Promise.all([
      subscribedSockets(wsUrl(sessionId), owner.headers(), 1, `ours sender ${n}`, clients),
      subscribedSockets(wsUrl(sessionId), viewer.headers(), 1, `ours viewer ${n}`, clients),
    ]);
    return { sessionId, sockets: { sender: sender[0]!, viewer: seen[0]! } };
  };
  const oursTurn = async (n: number) => {
    const { sessionId, sockets } = await openSession(n);
    try {
      const url = `${product.url}${base}/ai/sessions/${sessionId}/messages`;
      return await turnSample(sockets, marker('ours', n), (content) => postMessage(url, owner.headers(), content), clock);
    } finally {
      await closeAll([sockets.sender, sockets.viewer]);
      clients.delete(sockets.sender);
      clients.delete(sockets.viewer);
    }
  };

  // The first turn, untimed: the product's prompt, tools, tool result and event shapes, which the peer copies.
  log('one turn to capture what the product sends …');
  const chatsBefore = scripted.chatRequests().length;
  const { frames } = await oursTurn(99_999);
  const chats = scripted.chatRequests().slice(chatsBefore);
  const first = chats[0]!.body as { messages: ChatCompletionMessageParam[]; tools: ChatCompletionTool[] };
  const last = chats.at(-1)!.body as { messages: ChatCompletionMessageParam[] };
  const toolMessage = last.messages.find((m) => m.role === 'tool');
  if (!toolMessage || typeof toolMessage.content !== 'string') throw new Error('the product sent no role=tool message to the model');
  const toolResult: unknown = JSON.parse(toolMessage.content);
  const templates: Record<string, EventTemplate> = {};
  for (const event of eventsOf(frames)) templates[event.type] ??= event;
  const peer = await startTurnPeer({ baseUrl: scripted.url, model, apiKey: API_KEY, prompt: first.messages, tools: first.tools, toolResult, templates });
  resources.peers.push(peer);
  const peerSockets: Sockets = {
    sender: (await subscribedSockets(peer.url.replace(/^http/, 'ws'), owner.headers(), 1, 'peer sender', clients))[0]!,
    viewer: (await subscribedSockets(peer.url.replace(/^http/, 'ws'), viewer.headers(), 1, 'peer viewer', clients))[0]!,
  };
  const peerTurn = (n: number) => turnSample(peerSockets, marker('peer', n), (content) => postMessage(`${peer.url}/messages`, owner.headers(), content), clock);

  // The floors in the same workerd, given the same script: one without storage, one storing its events.
  const floorSide = async (side: 'floor' | 'stored'): Promise<Side> => {
    const floorUrl = `${product.url}/__floor/loop/${side}`;
    const setup = await fetch(`${floorUrl}/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ baseUrl: scripted.url, apiKey: API_KEY, model, prompt: first.messages, tools: first.tools, toolResult, templates, store: side === 'stored' }),
      signal: AbortSignal.timeout(SAMPLE_TIMEOUT_MS),
    });
    if (setup.status !== 201) throw new Error(`the loop floor refused its script: ${setup.status} ${(await setup.text()).slice(0, 300)}`);
    const floorWs = `${floorUrl.replace(/^http/, 'ws')}/ws`;
    const sockets: Sockets = {
      sender: (await subscribedSockets(floorWs, owner.headers(), 1, `${side} sender`, clients))[0]!,
      viewer: (await subscribedSockets(floorWs, viewer.headers(), 1, `${side} viewer`, clients))[0]!,
    };
    return async (n) => (await turnSample(sockets, marker(side, n), (content) => postMessage(`${floorUrl}/messages`, owner.headers(), content), clock)).sample;
  };

  log(`${WARMUP} warm-up turns per side (ours, the Node peer, the two floors), then ${ROUNDS} rounds of ${PER_ROUND} …`);
  const result = await measure({
    ours: async (n) => (await oursTurn(n)).sample,
    peer: async (n) => (await peerTurn(n)).sample,
    floor: await floorSide('floor'),
    stored: await floorSide('stored'),
  });
  const row = (metric: { key: keyof TurnSample; name: string; peer: string }, against: SideName) =>
    pairedRow(
      metric.name,
      metric.peer,
      { ours: result.samples.ours.map((s) => s[metric.key]), peer: result.samples[against].map((s) => s[metric.key]) },
      result.rounds.map((r) => median(r.ours.map((s) => s[metric.key])) / median(r[against].map((s) => s[metric.key]))),
    );
  const rows = [...FLOOR_METRICS.map((metric) => row(metric, metric.against)), ...METRICS.map((metric) => row(metric, 'peer'))];
  const medians = (samples: TurnSample[]) => ({
    total: median(samples.map((s) => s.total)),
    model: median(samples.map((s) => s.model)),
    reportedModel: median(samples.map((s) => s.reportedModel)),
    answered: median(samples.map((s) => s.answered)),
    firstRequest: median(samples.map((s) => s.firstRequest)),
    answeredToAccepted: median(samples.map((s) => s.answeredToAccepted)),
  });
  return {
    rows,
    medians: { ours: medians(result.samples.ours), peer: medians(result.samples.peer), floor: medians(result.samples.floor), stored: medians(result.samples.stored) },
    sizes: { toolResultChars: toolMessage.content.length, promptChars: JSON.stringify(first.messages).length, toolsChars: JSON.stringify(first.tools).length },
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * Runs the section and cleans up whatever happens: every socket, the peer, the scripted server,
 * the product (wrangler, workerd, the temp persist dir). Throws with a readable message on failure.
 */
export async function turnBench(log: (message: string) => void = (m) => console.error(`bench: ${m}`)): Promise<TurnBenchResult> {
  const resources: Resources = { peers: [], clients: new Set() };
  return runProductSection('the turn bench', resources, SECTION_TIMEOUT_MS, () => run(log, resources), async () => {
    resources.clock?.close();
    await resources.model?.close().catch(() => undefined);
  });
}

const ms = (value: number) => (Math.abs(value) >= 100 ? value.toFixed(0) : Math.abs(value) >= 10 ? value.toFixed(1) : value.toFixed(2));

/** The section's printout: the rows as run.ts prints its own, the turn's parts, and what the two sides are. */
export function turnReport(result: TurnBenchResult): string {
  const { ours, peer, floor, stored } = result.medians;
  const line = (name: string, key: keyof typeof ours) => `| ${name} | ${ms(ours[key])} | ${ms(floor[key])} | ${ms(stored[key])} | ${ms(peer[key])} |`;
  return [
    markdownTable(result.rows),
    '',
    '| median of the same turns | ours, ms | floor (same workerd), ms | floor storing its events, ms | Node peer, ms |',
    '|---|---:|---:|---:|---:|',
    line('whole turn, POST → turn.finished at the sender', 'total'),
    line(`model time inside it (scripted server, request received → response end, ${REQUESTS} requests)`, 'model'),
    line('the same calls as the loop timed them (sum of llm.completed durationMs)', 'reportedModel'),
    line('POST → its 202', 'answered'),
    line('202 → turn.accepted at the viewer (negative: the event came before the answer)', 'answeredToAccepted'),
    line('POST → the first llm.requested at the viewer (the message taken in and the prompt composed)', 'firstRequest'),
    '',
    `The AI turn: ours is the product under \`wrangler dev\`, its LLM profile pointed at the scripted OpenAI-compatible server in this process ` +
      `(test/support/scripted-openai, chunk delay 0); each turn is the first of a new step session, sent by the owner while a viewer's socket is subscribed. ` +
      `The script: ${TOOL_ITERATIONS} responses with one builder_step_read call each, then the final answer ${FINAL_ANSWER}. ` +
      `The floor and the peer send the product's own first request (${result.sizes.promptChars} chars of messages, ${result.sizes.toolsChars} chars of tools) to the same script, ` +
      `and their tool answers the product's tool result (${result.sizes.toolResultChars} chars of JSON), re-serialised per call. ` +
      `The floor runs in the same \`wrangler dev\` as the product and is reached through the same service-binding hop (floor/worker.ts); the Node peer pays neither that hop nor workerd's to the model server. ` +
      `Model time is measured on the scripted server (node:http diagnostics channels: from the request's last byte to the response's end) and taken out of every side; ` +
      `what is left is the orchestration (HTTP, the SDK and its parsing, storage, events, sockets), over ${REQUESTS} requests per turn. ` +
      `${WARMUP} warm-up turns per side, then ${ROUNDS} rounds of ${PER_ROUND} per side, the order rotating; the ratio is the median of the round ratios.`,
    `Turn section: ${result.seconds.toFixed(0)} s, product start included.`,
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    console.log(turnReport(await turnBench()));
  } catch (error) {
    console.error(`bench: the turn bench failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
