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
import { profileWhile, summarise } from './cpu-profile.ts';
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
    const { profile, file } = await profileWhile(product.inspectorPort, 'turn', 100, async () => {
      for (let n = WARMUP; n < WARMUP + turns; n++) await turn(n);
    });
    console.log(summarise(profile, turns));
    console.log(`\n${turns} turns profiled (${TOOL_ITERATIONS} tool reads and the final answer each); the profile: ${file}`);
  } finally {
    await closeAll([...clients]);
    await product.stop();
    await scripted.close();
  }
}

await main(Number(process.argv[2] ?? 20));
