/**
 * The AI turn end to end, inside workerd: the real Worker and session Durable Object, the real
 * `openai` SDK talking HTTP to the scripted OpenAI-compatible server, a second socket watching
 * every event, and a forced restart of the object in the middle of the turn (scenario 1: step optimize).
 */
import { abortAllDurableObjects, runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { STEP, WF, connect, currentStep, supportDeskProject, stepSession } from './sessions.ts';
import { CANARY_KEY, auditRows, expectOrdered, finalAnswer, objectRows, send, sessionObject, toolCall, turnEnd, useScriptedModel, waitFor } from './turns.ts';

const STEP_KEY = `step:${WF}/${STEP}`;
const CHECKLIST = 'assets/policies/line-checklist.md';


describe('scenario 1: step optimize + asset upsert + apply', () => {
  it('reads, stages, validates and finishes across a restart; a second socket sees every event in order; a person applies', async () => {
    const { owner, base, projectId, member } = await supportDeskProject();
    const viewer = await member('viewer');
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const before = await currentStep(owner, base);
    const improved = `${before.markdown.trimEnd()}\n\nUse the checklist in assets/policies/line-checklist.md for every line.\n`;
    const changeSet = {
      schemaVersion: '1.0',
      targetType: 'step',
      mode: 'optimize',
      operations: [
        { op: 'upsert', targetType: 'step', target: { workflowId: WF, nodeId: STEP }, payload: { stepMarkdown: improved }, reason: 'Point to the checklist.' },
        { op: 'upsert', targetType: 'asset', target: { path: CHECKLIST }, payload: { content: '# Line checklist\n\n- Receipt attached\n- Amount within policy\n' } },
      ],
      impact: { objects: [STEP_KEY, `asset:${CHECKLIST}`] },
    };
    const scripted = await useScriptedModel(owner, [
      { content: 'unused: the queue answers the first request' },
      { toolCalls: [toolCall('builder.asset.read', { path: 'assets/policies/support-policy.md' }, 'call_policy')] },
      { toolCalls: [toolCall('builder.change.stage', { changeSet }, 'call_stage')] },
      finalAnswer('Pointed classify-issue to a new line checklist asset (1 step changed, 1 asset added).'),
    ]);
    // The second model request hangs once: the object is evicted while it waits.
    const readFirst = { content: 'Let me read the step first.', toolCalls: [toolCall('builder.context.get', {}, 'call_ctx'), toolCall('builder.step.read', { workflowId: WF, nodeId: STEP }, 'call_step')] };
    await scripted.queue(readFirst, 1);
    await scripted.queue({ reply: { content: 'never sent' }, delayMs: 60_000 }, 1);

    const watcher = await connect(viewer, base, sessionId);
    const accepted = await send(owner, path, 'Make classify-issue point to a checklist asset.');
    expect(accepted.status).toBe(202);
    expect(accepted.data).toMatchObject({ turnId: expect.stringMatching(/^turn_/), seq: expect.any(Number), status: 'running' });
    const turnId = accepted.data.turnId as string;

    // A second message while the turn runs is refused and not stored.
    const second = await send(owner, path, 'And another thing');
    expect(second.status).toBe(409);
    expect(second.error?.code).toBe('AI_TURN_IN_PROGRESS');

    // Both read tools ran; the second model call is hanging: restart the object now.
    await watcher.until(() => watcher.events().filter((e) => e.type === 'llm.requested').length === 2, 'second model request').catch((error) => {
      console.log(JSON.stringify(watcher.events().map((e) => [e.seq, e.type, e.payload])).slice(0, 6000));
      throw error;
    });
    await waitFor(async () => (await scripted.pending()) === 1, 'the hanging request');
    const seenBeforeRestart = watcher.events();
    await abortAllDurableObjects();
    await runDurableObjectAlarm(sessionObject(sessionId));
    // The restart closed the socket; the viewer reconnects with the last seq it saw and misses nothing.
    await watcher.until(() => watcher.closed, 'the socket to close with the restart');
    const resumed = await connect(viewer, base, sessionId, seenBeforeRestart.at(-1)!.seq);

    const end = await turnEnd(resumed, turnId).catch((error) => {
      console.log(JSON.stringify(resumed.events().map((e) => [e.seq, e.type, e.payload])).slice(0, 8000));
      throw error;
    });
    expect(end.type).toBe('turn.finished');
    expect(end.payload).toMatchObject({ responseType: 'change', valid: true, needsManualFix: false, repairs: 0 });
    expect(end.payload.summary).toContain('checklist');

    const events = [...seenBeforeRestart, ...resumed.events()];
    expectOrdered(events);
    const types = events.filter((e) => e.turnId === turnId).map((e) => e.type);
    expect(types[0]).toBe('turn.accepted');
    expect(types).toContain('turn.context');
    expect(types).toContain('turn.resumed');
    expect(types).toContain('change.staged');
    expect(types.indexOf('turn.validating')).toBeGreaterThan(types.indexOf('change.staged'));
    expect(types.at(-1)).toBe('turn.finished');
    const firstText = events.filter((e) => e.type === 'assistant.delta' && e.payload.iteration === 1).map((e) => e.payload.text);
    expect(firstText.join('')).toBe('Let me read the step first.');
    // Every tool call ran exactly once, the restart included.
    const finished = events.filter((e) => e.type === 'tool.finished').map((e) => e.payload.toolCallId);
    expect(finished.sort()).toEqual(['call_ctx', 'call_policy', 'call_stage', 'call_step']);
    const runs = await objectRows(sessionId, 'SELECT tool_call_id, status FROM tool_runs ORDER BY tool_call_id');
    expect(runs).toEqual(['call_ctx', 'call_policy', 'call_stage', 'call_step'].map((id) => ({ tool_call_id: id, status: 'finished' })));

    // The protocol: wire names, JSON Schemas, role=tool results with their tool_call_id.
    const requests = await scripted.requests();
    const first = requests[0]!.body as any;
    expect(first.messages[0].role).toBe('system');
    expect(first.messages[0].content).toContain('[Layer-0A]');
    const offered = first.tools.map((t: any) => t.function.name);
    expect(offered).toContain('builder_step_read');
    expect(offered).not.toContain('builder_change_apply');
    const last = requests.at(-1)!.body as any;
    const toolMessages = last.messages.filter((m: any) => m.role === 'tool');
    expect(toolMessages.map((m: any) => m.tool_call_id)).toEqual(['call_ctx', 'call_step', 'call_policy', 'call_stage']);
    expect(JSON.parse(toolMessages[0].content)).toMatchObject({ ok: true });

    // The session view: summary-only conversation, the suggestion and its validation.
    const state = (await owner.get(path)).data;
    expect(state.messages.items.map((m: any) => [m.role, m.content])).toEqual([
      ['user', 'Make classify-issue point to a checklist asset.'],
      ['assistant', end.payload.summary],
    ]);
    expect(state.turn).toMatchObject({ turnId, status: 'finished', context: { layers: expect.any(Array) } });
    expect(state.turn.context.layers.map((l: any) => l.id)).toEqual(['0A', '0B', '1', '2', '3', '4', '5', '6']);
    expect(state.usage.session.calls).toBeGreaterThanOrEqual(4);
    expect(state.validation.valid).toBe(true);
    expect(state.latestSuggestion.files.map((f: any) => [f.key, f.action])).toEqual(
      expect.arrayContaining([
        [STEP_KEY, 'M'],
        [`asset:${CHECKLIST}`, 'A'],
      ]),
    );

    // Only a person applies.
    const applied = await owner.post(`${path}/apply`, { changeSetId: state.latestSuggestion.changeSetId, confirmSource: 'ui_manual_apply' });
    expect(applied.status).toBe(200);
    expect((await currentStep(owner, base)).markdown).toBe(improved);
    expect((await owner.get(`${base}/assets/file?path=${encodeURIComponent(CHECKLIST)}`)).data.asset.content).toContain('Line checklist');

    // Audit trail, and the key nowhere.
    const audit = await auditRows(projectId);
    const auditTypes = audit.map((r) => r.event_type);
    for (const type of ['ai.message.sent', 'ai.prompt.composed', 'ai.tool.called', 'ai.turn.finished', 'ai.apply.succeeded']) expect(auditTypes).toContain(type);
    const metrics = (await owner.get(`${base}/ai/metrics`)).data;
    expect(metrics).toMatchObject({
      messages: 1,
      turns: { total: 1, finished: 1, failed: 0, successRate: 1 },
      tools: { calls: 4, failed: 0, forbidden: 0 },
      apply: { succeeded: 1, conversion: 1 },
    });
    expect(metrics.tokens.total).toBe(end.payload.usage.totalTokens);
    const stored = JSON.stringify([events, audit, await objectRows(sessionId, 'SELECT * FROM messages'), await objectRows(sessionId, 'SELECT * FROM turns'), requests.map((r) => r.body)]);
    expect(stored).not.toContain(CANARY_KEY);
    resumed.close();
  });
});

describe('the turn with the local demo model and a small context window', () => {
  it('runs the demo model that npm start uses: it reads the context and the step, stages a clearer step, validates and summarises', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const profile = await owner.put('/api/users/me/llm-profile', {
      provider: 'openai-compatible',
      preset: 'custom',
      baseUrl: env.SCRIPTED_OPENAI_URL,
      model: 'scripted-demo',
      apiKey: CANARY_KEY,
      timeoutSeconds: 30,
    });
    expect(profile.status).toBe(200);
    const watcher = await connect(owner, base, sessionId);
    const accepted = await send(owner, path, 'What does this step do?');
    const end = await turnEnd(watcher, accepted.data.turnId);
    expect(end.type).toBe('turn.finished');
    expect(end.payload).toMatchObject({ responseType: 'change', changeSetId: expect.stringMatching(/^cs_/), valid: true, iterations: 5 });
    expect(watcher.events().filter((e) => e.type === 'tool.finished').map((e) => [e.payload.name, e.payload.ok])).toEqual([
      ['builder.context.get', true],
      ['builder.step.read', true],
      ['builder.change.stage', true],
      ['builder.change.validate', true],
    ]);
    watcher.close();
  });

  it('fails the turn with AI_CONTEXT_BUDGET_EXCEEDED when even the target cannot fit, and keeps the message', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const scripted = await useScriptedModel(owner, [finalAnswer('never asked', 'chat')], { contextWindow: 1024 });
    const watcher = await connect(owner, base, sessionId);
    const accepted = await send(owner, path, 'Improve the step.');
    const end = await turnEnd(watcher, accepted.data.turnId);
    expect(end.type).toBe('turn.failed');
    expect(end.payload.code).toBe('AI_CONTEXT_BUDGET_EXCEEDED');
    expect(end.payload.hints.length).toBeGreaterThan(0);
    expect(await scripted.requests()).toHaveLength(0);
    expect((await owner.get(path)).data.messages.items.map((m: any) => m.content)).toEqual(['Improve the step.']);
    watcher.close();
  });
});

describe('the final-answer contract of the original product', () => {
  it('stages and validates a changeSet the final answer carries, in the older shape too', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const before = await currentStep(owner, base);
    const improved = `${before.markdown.trimEnd()}\n\nRecord the receipt number of each line.\n`;
    // The original product's older shape: {targetType, mode, changeSet: {steps: [...]}, impact: {updated}}.
    const legacy = {
      targetType: 'step',
      mode: 'optimize',
      changeSet: { steps: [{ workflowId: WF, nodeId: STEP, stepMarkdown: improved, reason: 'Receipt numbers.' }] },
      impact: { updated: [STEP_KEY] },
    };
    await useScriptedModel(owner, [finalAnswer('Asked for receipt numbers on every line.', 'change', { changeSet: legacy })]);
    const watcher = await connect(owner, base, sessionId);
    const accepted = await send(owner, path, 'Ask for receipt numbers.');
    const end = await turnEnd(watcher, accepted.data.turnId);
    expect(end.type).toBe('turn.finished');
    expect(end.payload).toMatchObject({ responseType: 'change', valid: true, version: 1, summary: 'Asked for receipt numbers on every line.' });
    const stage = await watcher.event('tool.finished', (e) => e.payload.name === 'builder.change.stage');
    expect(stage.payload).toMatchObject({ toolCallId: 'final-1', ok: true });
    expect((await owner.get(`${path}/changes`)).data.files).toEqual([expect.objectContaining({ key: STEP_KEY, after: improved })]);
    // The chat holds the summary only, never the staged file.
    const state = (await owner.get(path)).data;
    expect(JSON.stringify(state.messages)).not.toContain('Record the receipt number');
    watcher.close();
  });
});
