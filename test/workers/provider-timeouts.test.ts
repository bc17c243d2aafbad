/**
 * The provider's two time limits through a full AI turn inside workerd (the real Worker, session
 * object and openai SDK; the scripted server pacing or stalling its stream). The profile's
 * timeoutSeconds, at its least (5 s), is the longest silence: a stream whose chunks come a second
 * apart for longer than that in all finishes; one that stops sending fails saying it stopped.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { scriptModel, type ScriptStep } from './scripted-model.ts';
import { STEP, WF, connect, supportDeskProject, stepSession } from './sessions.ts';
import { CANARY_KEY, finalAnswer, send, toolCall, turnEnd } from './turns.ts';

const TIMEOUT_SECONDS = 5;

async function runTurn(steps: ScriptStep[]) {
  const project = await supportDeskProject();
  const sessionId = await stepSession(project.owner, project.base);
  const path = `${project.base}/ai/sessions/${sessionId}`;
  const scripted = await scriptModel(env.SCRIPTED_OPENAI_URL, steps);
  const saved = await project.owner.put('/api/users/me/llm-profile', {
    provider: 'openai-compatible',
    preset: 'custom',
    baseUrl: env.SCRIPTED_OPENAI_URL,
    model: scripted.model,
    apiKey: CANARY_KEY,
    timeoutSeconds: TIMEOUT_SECONDS,
    contextWindow: 128_000,
  });
  if (saved.status !== 200) throw new Error(`profile failed: ${JSON.stringify(saved.error)}`);
  const watcher = await connect(project.owner, project.base, sessionId);
  const accepted = await send(project.owner, path, 'Read the step.');
  expect(accepted.status).toBe(202);
  const end = await turnEnd(watcher, accepted.data.turnId as string, 60_000);
  return { end, requests: await scripted.requests() };
}

describe('time limits through a full turn', () => {
  it('a slow but steady stream (a chunk a second, longer than the timeout in all) finishes', async () => {
    const content = JSON.stringify({ responseType: 'chat', assistantSummary: 'The step reads well.' });
    const { end } = await runTurn([
      { toolCalls: [toolCall('builder.step.read', { workflowId: WF, nodeId: STEP })] },
      { reply: { content, fragmentChars: Math.ceil(content.length / 7) }, chunkDelayMs: 1_000 },
    ]);
    expect(end.type, JSON.stringify(end.payload)).toBe('turn.finished');
    expect(end.payload).toMatchObject({ responseType: 'chat', summary: 'The step reads well.' });
  }, 60_000);

  it('a stream that stops sending fails with AI_PROVIDER_TIMEOUT saying it stopped, without a retry', async () => {
    const { end, requests } = await runTurn([{ fault: 'stall_mid_stream', afterChunks: 2 }, finalAnswer('never reached', 'chat')]);
    expect(end.type).toBe('turn.failed');
    expect(end.payload).toMatchObject({
      code: 'AI_PROVIDER_TIMEOUT',
      message: `The AI provider stopped sending its answer: nothing arrived for ${TIMEOUT_SECONDS} seconds.`,
    });
    expect(requests).toHaveLength(1);
  }, 60_000);
});
