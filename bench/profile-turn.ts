/**
 * Where a turn's time goes inside workerd (not part of `npm run bench`; alone:
 * `npm exec -- node bench/profile-turn.ts [turns]`): the product under `wrangler dev`, unminified,
 * its CPU profiled through wrangler's inspector (the DevTools protocol) while a viewer watches
 * `turns` AI turns (default 20), each the first of a new step session with the turn bench's script
 * (tool reads, then the final answer). Only the turns are profiled: the sessions and sockets are
 * opened before the profiler starts. Prints the functions with the most time of their own and in
 * total, in ms per turn, and writes the profile (open it in Chrome's DevTools) to a temp file.
 * The Worker and the session objects run in one isolate under `wrangler dev`, so both are in it.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { STEP, WORKFLOW, closeAll, importDemo, register, stepSession, subscribedSockets } from './session-clients.ts';
import type { Client } from './session-clients.ts';
import { marker, post } from './session.ts';
import { TOOL_ITERATIONS } from './turn-sample.ts';
import { startProduct } from '../test/browser/product.ts';
import { startScriptedOpenAI } from '../test/support/scripted-openai/index.ts';
import { scriptModel } from '../test/workers/scripted-model.ts';

const FINAL_ANSWER = JSON.stringify({ responseType: 'chat', assistantSummary: 'done' });
const WARMUP = 3;
const TIMEOUT_MS = 20_000;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The DevTools protocol over one socket: `call(method, params)` → its result. */
async function devtools(port: number) {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as Array<{ webSocketDebuggerUrl: string }>;
  if (!targets[0]) throw new Error('wrangler dev lists no inspector target');
  const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let next = 0;
  const waiting = new Map<number, (result: unknown) => void>();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
  });
  const call = <T>(method: string, params: object = {}) =>
    new Promise<T>((resolve) => {
      const id = ++next;
      waiting.set(id, resolve as (result: unknown) => void);
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { call, close: () => socket.close() };
}

/**
 * A sample's time: its delta, but at most twice the median delta. workerd's sampler pauses while the
 * isolate waits (I/O, the output gate); the first sample after a pause carries the whole pause as its
 * delta and would charge milliseconds to whatever JS ran first after it (a zod parse timed at 3 µs
 * showed as 500 µs). Capped, the times are CPU estimates; what the cap took off is printed.
 */
function sampleTimes(profile: Profile): { times: number[]; cut: number } {
  const sorted = [...profile.timeDeltas].sort((a, b) => a - b);
  const cap = 2 * (sorted[Math.floor(sorted.length / 2)] ?? 0);
  const times = profile.timeDeltas.map((us) => Math.min(us, cap));
  return { times, cut: profile.timeDeltas.reduce((sum, us) => sum + us, 0) - times.reduce((sum, us) => sum + us, 0) };
}

/** Self and total time per function (name and line), in ms per turn, the top `limit` of each. */
function summarise(profile: Profile, turns: number, limit = 30): string {
  const { times, cut } = sampleTimes(profile);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const label = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${path.basename(n.callFrame.url) || ''}:${n.callFrame.lineNumber}`;
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const us = times[i] ?? 0;
    const node = byId.get(id)!;
    self.set(label(node), (self.get(label(node)) ?? 0) + us);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = label(byId.get(at)!);
      if (!seen.has(name)) total.set(name, (total.get(name) ?? 0) + us);
      seen.add(name);
    }
  });
  const top = (map: Map<string, number>) =>
    [...map].sort((a, b) => b[1] - a[1]).slice(0, limit).map(([name, us]) => `| ${(us / 1000 / turns).toFixed(2)} | \`${name}\` |`);
  const pauses = `Pauses the sampler did not see (capped sample times): ${(cut / 1000 / turns).toFixed(2)} ms per turn, left out.`;
  return ['| ms per turn, own | function |', '|---:|---|', ...top(self), '', '| ms per turn, in total | function |', '|---:|---|', ...top(total), '', pauses].join('\n');
}

async function main(turns: number): Promise<void> {
  const scripted = await startScriptedOpenAI({ control: true });
  const product = await startProduct({ minify: false });
  const clients = new Set<Client>();
  try {
    const owner = await register(product.url, 'profile-turn');
    const projectId = await importDemo(owner);
    const base = `/api/projects/${projectId}`;
    const readStep = { name: 'builder_step_read', arguments: { projectId, workflowId: WORKFLOW, nodeId: STEP } };
    const steps = [...Array.from({ length: TOOL_ITERATIONS }, () => ({ toolCalls: [readStep] })), { content: FINAL_ANSWER }];
    const { model } = await scriptModel(scripted.url, steps, { name: 'profile-turn' });
    await owner.call('PUT', '/api/users/me/llm-profile', { provider: 'openai-compatible', preset: 'custom', baseUrl: scripted.url, model, apiKey: 'sk-profile', timeoutSeconds: 60, contextWindow: 128_000 }, 200);
    const ws = product.url.replace(/^http/, 'ws');
    const sessions: Array<{ sessionId: string; viewer: Client }> = [];
    for (let n = 0; n < WARMUP + turns; n++) {
      const sessionId = await stepSession(owner, base);
      const [viewer] = await subscribedSockets(`${ws}${base}/ai/sessions/${sessionId}/ws`, owner.headers(), 1, `profile viewer ${n}`, clients);
      sessions.push({ sessionId, viewer: viewer! });
    }
    const turn = async (n: number) => {
      const { sessionId, viewer } = sessions[n]!;
      const end = viewer.waitText((text) => /"type":"turn\.(finished|failed)"/.test(text), 'the end of the turn', TIMEOUT_MS);
      await post(`${product.url}${base}/ai/sessions/${sessionId}/messages`, owner.headers(), { content: marker('ours', 'profile', n) }, 202);
      const ended = await end;
      if (!ended.text.includes('"type":"turn.finished"')) throw new Error(`a profiled turn did not finish: ${ended.text.slice(0, 300)}`);
    };
    for (let n = 0; n < WARMUP; n++) await turn(n);
    const inspector = await devtools(product.inspectorPort);
    await inspector.call('Profiler.enable');
    await inspector.call('Profiler.setSamplingInterval', { interval: 100 });
    await inspector.call('Profiler.start');
    for (let n = WARMUP; n < WARMUP + turns; n++) await turn(n);
    const { profile } = await inspector.call<{ profile: Profile }>('Profiler.stop');
    inspector.close();
    const file = path.join(tmpdir(), `crewagent-turn-${Date.now()}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    console.log(summarise(profile, turns));
    console.log(`\n${turns} turns profiled (${TOOL_ITERATIONS} tool reads and the final answer each); the profile: ${file}`);
  } finally {
    await closeAll([...clients]);
    await product.stop();
    await scripted.close();
  }
}

await main(Number(process.argv[2] ?? 20));
