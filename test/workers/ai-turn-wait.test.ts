/**
 * POST …/messages?wait (issue 14, item 8): a client written to the seed's contract (a script, a CI job)
 * waits for the turn's end and gets {assistantSummary, latestSuggestion, validation, turn}; a turn that
 * outlasts the wait answers 202 with the turn id and how to poll. Inside workerd, real session object.
 */
import { abortAllDurableObjects } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { currentStep, supportDeskProject, stepChangeSet, stepSession } from './sessions.ts';
import { finalAnswer, toolCall, useScriptedModel, waitFor } from './turns.ts';

async function bench() {
  const project = await supportDeskProject();
  const sessionId = await stepSession(project.owner, project.base);
  return { ...project, sessionId, path: `${project.base}/ai/sessions/${sessionId}` };
}

describe('POST …/messages?wait', () => {
  it('waits for a turn that stages a change and answers its summary, suggestion and validation', async () => {
    const b = await bench();
    const before = await currentStep(b.owner, b.base);
    const markdown = `${before.markdown.trimEnd()}\n\nAttach the receipt to every line.\n`;
    await useScriptedModel(b.owner, [
      { toolCalls: [toolCall('builder.change.stage', { changeSet: stepChangeSet(markdown) })] },
      finalAnswer('Asked for a receipt on every line.'),
    ]);
    const res = await b.owner.post(`${b.path}/messages?wait=true`, { content: 'Ask for receipts.' });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({
      assistantSummary: 'Asked for a receipt on every line.',
      latestSuggestion: { changeSetId: expect.any(String), version: 1 },
      validation: { valid: true },
      turn: { turnId: expect.stringMatching(/^turn_/), status: 'finished', responseType: 'change', error: null, iterations: 2 },
    });
    // The same as the session says afterwards.
    const state = (await b.owner.get(b.path)).data;
    expect(state.latestSuggestion.changeSetId).toBe(res.data.latestSuggestion.changeSetId);
    expect(state.turn).toMatchObject({ turnId: res.data.turn.turnId, status: 'finished' });
  });

  it('answers a failed turn with its error', async () => {
    const b = await bench();
    const scripted = await useScriptedModel(b.owner, [finalAnswer('never')]);
    await scripted.queue({ fault: 'http_error', status: 400, body: { error: { message: 'registry.ollama.ai/library/tinyllama does not support tools', type: 'api_error' } } });
    const res = await b.owner.post(`${b.path}/messages?wait=30`, { content: 'Hello' });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ assistantSummary: null, latestSuggestion: null, turn: { status: 'failed', error: { code: 'AI_MODEL_NO_TOOLS' } } });
  });

  it('a turn longer than the wait answers 202 with the turn id and how to poll', async () => {
    const b = await bench();
    const scripted = await useScriptedModel(b.owner, [finalAnswer('Late answer.', 'chat')]);
    await scripted.queue({ reply: finalAnswer('Late answer.', 'chat'), delayMs: 4_000 });
    const res = await b.owner.post(`${b.path}/messages?wait=1`, { content: 'Take your time.' });
    expect(res.status).toBe(202);
    expect(res.data).toMatchObject({ turnId: expect.stringMatching(/^turn_/), status: 'running', waitedSeconds: 1, poll: { method: 'GET', path: b.path } });
    // Polling as told ends with the turn's outcome.
    const ended = await waitFor(async () => {
      const state = (await b.owner.get(res.data.poll.path)).data;
      return state.turn.status !== 'running' && state.turn;
    }, 'the turn to end');
    expect(ended).toMatchObject({ turnId: res.data.turnId, status: 'finished' });
  });

  it('the session object restarting during the wait answers AI_TURN_WAIT_INTERRUPTED with the turn id and how to poll', async () => {
    const b = await bench();
    const scripted = await useScriptedModel(b.owner, [finalAnswer('After the restart.', 'chat')]);
    await scripted.queue({ reply: finalAnswer('never sent', 'chat'), delayMs: 60_000 });
    const waiting = b.owner.post(`${b.path}/messages?wait=60`, { content: 'Hello' });
    await waitFor(async () => (await scripted.pending()) === 1, 'the hanging model request');
    await abortAllDurableObjects();
    const res = await waiting;
    expect(res.status).toBe(503);
    expect(res.error).toMatchObject({ code: 'AI_TURN_WAIT_INTERRUPTED', turnId: expect.stringMatching(/^turn_/), poll: { method: 'GET', path: b.path } });
  });

  it('refuses a wait outside 1 to 120 seconds before starting a turn', async () => {
    const b = await bench();
    await useScriptedModel(b.owner, [finalAnswer('never', 'chat')]);
    for (const wait of ['121', 'soon', '-1', '1.5']) {
      const refused = await b.owner.post(`${b.path}/messages?wait=${wait}`, { content: 'Hello' });
      expect(refused.status).toBe(422);
      expect(refused.error?.code).toBe('VALIDATION_FAILED');
    }
    expect((await b.owner.get(b.path)).data.turn).toBeNull();
  });
});
