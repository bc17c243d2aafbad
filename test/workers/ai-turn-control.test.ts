/**
 * Controlling the AI turn, inside workerd against the real Worker, session object and scripted
 * model: stop (route and socket frame), one turn at a time, refused input, validation repairs,
 * suggest-only turns, a viewer joining mid-turn, and the history window. What a turn spends (usage,
 * the token budget, whose key a resume uses) is ai-turn-spending.test.ts; both share turn-control.ts.
 * Every model reply is queued in order, so a test reads as the conversation it plays.
 */
import { describe, expect, it } from 'vitest';
import { SUMMARY_HEADING } from '../../durable-objects/ai-session/prompt/history.ts';
import { ERROR_CODES, isErrorCode } from '../../shared/errors.ts';
import { STEP, WF, connect, currentStep, supportDeskProject, stepSession } from './sessions.ts';
import { auditRows, expectOrdered, finalAnswer, send, toolCall, turnEnd, waitFor } from './turns.ts';
import { HELD, STEP_KEY, auditTypes, conversation, inFlight, modelPlaying, readContext, runTurn, stage, startTurn, turnEvents, turnSetup, withSession } from './turn-control.ts';

describe('stop', () => {
  it('stops an in-flight model call from the route without waiting for the model, aborts the provider request, audits it, and the next message runs', async () => {
    const { owner, projectId, path, scripted, watcher } = await turnSetup([HELD, finalAnswer('Back after the stop.', 'chat')]);
    const turnId = await startTurn(owner, path, 'Tighten the step.');
    await inFlight(scripted);

    const stopped = await owner.post(`${path}/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.data).toEqual({ turnId, status: 'stopped' });
    const end = await turnEnd(watcher, turnId);
    expect(end.type).toBe('turn.stopped');
    expect(end.payload.stoppedBy).toEqual({ userId: owner.userId, name: 'Owner' });
    // The held reply was never played: the turn ended on the stop, not on the model's answer.
    expect(JSON.stringify(turnEvents(watcher, turnId))).not.toContain('never sent');
    // The held request can only close this early if the session object aborted it.
    await waitFor(async () => (await scripted.pending()) === 0, 'the provider request to be aborted');

    expect(await auditTypes(projectId)).toContain('ai.turn.stopped');
    expect((await owner.get(path)).data.turn).toMatchObject({ turnId, status: 'stopped' });

    const next = await runTurn(owner, path, watcher, 'Try again.');
    expect(next.type).toBe('turn.finished');
    expect(next.payload.summary).toBe('Back after the stop.');
  });

  it("stops from an editor's socket frame {type: 'stop'} the same way", async () => {
    const { owner, base, sessionId, path, scripted, member } = await turnSetup([HELD]);
    const editor = await member('editor');
    const editorSocket = await connect(editor, base, sessionId);
    const turnId = await startTurn(owner, path, 'Tighten the step.');
    await inFlight(scripted);

    editorSocket.send({ type: 'stop' });
    const end = await turnEnd(editorSocket, turnId);
    expect(end.type).toBe('turn.stopped');
    expect(end.payload.stoppedBy).toEqual({ userId: editor.userId, name: 'Edith' });
    expect(end.actor).toMatchObject({ kind: 'user', userId: editor.userId });
    expect(JSON.stringify(turnEvents(editorSocket, turnId))).not.toContain('never sent');
    await waitFor(async () => (await scripted.pending()) === 0, 'the provider request to be aborted');
    expect(editorSocket.texts().filter((m) => m.type === 'error')).toEqual([]);
    editorSocket.close();
  });

  it("refuses a viewer's stop (403 on the route, a FORBIDDEN frame on the socket) and a stop with nothing running (409)", async () => {
    const { owner, base, sessionId, path, scripted, watcher, member } = await turnSetup([HELD]);
    const idle = await owner.post(`${path}/stop`);
    expect(idle.status).toBe(409);
    expect(idle.error?.code).toBe('AI_TURN_NOT_RUNNING');

    const viewer = await member('viewer');
    const viewerSocket = await connect(viewer, base, sessionId);
    const turnId = await startTurn(owner, path, 'Tighten the step.');
    await inFlight(scripted);

    const byRoute = await viewer.post(`${path}/stop`);
    expect(byRoute.status).toBe(403);
    expect(byRoute.error?.code).toBe('FORBIDDEN');
    viewerSocket.send({ type: 'stop' });
    const refused = await viewerSocket.until(() => viewerSocket.texts().find((m) => m.type === 'error'), 'an error frame');
    expect(refused.code).toBe('FORBIDDEN');

    // Neither stopped anything.
    expect(await scripted.pending()).toBe(1);
    expect((await owner.get(path)).data.turn).toMatchObject({ turnId, status: 'running' });
    expect(turnEvents(watcher, turnId, 'turn.stopped')).toEqual([]);

    expect((await owner.post(`${path}/stop`)).status).toBe(200);
    const again = await owner.post(`${path}/stop`);
    expect(again.error?.code).toBe('AI_TURN_NOT_RUNNING');
    viewerSocket.close();
  });

  it('never cancels a turn when the watching socket disconnects: the turn finishes', async () => {
    const { owner, base, sessionId, path, scripted, watcher } = await turnSetup([
      { reply: readContext(), delayMs: 1_000 },
      finalAnswer('Finished with nobody watching.', 'chat'),
    ]);
    const turnId = await startTurn(owner, path, 'Summarise the step.');
    await inFlight(scripted);
    watcher.close();
    await watcher.until(() => watcher.closed, 'the socket to close');

    const turn = await waitFor(async () => {
      const view = (await owner.get(path)).data.turn;
      return view.status !== 'running' && view;
    }, 'the turn to end');
    expect(turn).toMatchObject({ turnId, status: 'finished' });
    const later = await connect(owner, base, sessionId);
    const end = await turnEnd(later, turnId);
    expect(end).toMatchObject({ type: 'turn.finished', payload: { summary: 'Finished with nobody watching.' } });
    expect(turnEvents(later, turnId, 'tool.finished').map((e) => e.payload.toolCallId)).toEqual(['call_ctx']);
    later.close();
  });
});

describe('one turn at a time', () => {
  it('refuses a second message and an apply while a turn runs; the refused message is not in the conversation', async () => {
    const { owner, path, scripted, watcher } = await turnSetup([HELD]);
    const turnId = await startTurn(owner, path, 'First request.');
    await inFlight(scripted);

    const second = await send(owner, path, 'Second request.');
    expect(second.status).toBe(409);
    expect(second.error).toMatchObject({ code: 'AI_TURN_IN_PROGRESS', turnId });
    expect(second.error?.hints).toEqual(['Wait for the answer, or stop the AI and send your message again.']);
    const apply = await owner.post(`${path}/apply`, { changeSetId: 'cs_any', confirmSource: 'ui_manual_apply' });
    expect(apply.status).toBe(409);
    // The apply's refusal says what to do too: wait for the turn, or stop it.
    expect(apply.error).toMatchObject({ code: 'AI_TURN_IN_PROGRESS', turnId, turnStatus: 'running', hints: ['Wait for the answer, or stop the AI and apply.'] });

    expect(await conversation(owner, path)).toEqual([['user', 'First request.']]);
    expect(watcher.events().filter((e) => e.type === 'turn.accepted')).toHaveLength(1);
    expect(await scripted.requests()).toHaveLength(1);
    await owner.post(`${path}/stop`);
  });

  it('cancel while a turn runs stops the turn first, then cancels the session', async () => {
    const { owner, path, scripted, watcher } = await turnSetup([HELD]);
    const turnId = await startTurn(owner, path, 'Tighten the step.');
    await inFlight(scripted);

    const cancelled = await owner.post(`${path}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.data.status).toBe('cancelled');
    const cancelEvent = await watcher.event('session.cancelled');
    const stopEvent = await turnEnd(watcher, turnId);
    expect(stopEvent.type).toBe('turn.stopped');
    expect(stopEvent.payload.stoppedBy.userId).toBe(owner.userId);
    expect(stopEvent.seq).toBeLessThan(cancelEvent.seq);
    await waitFor(async () => (await scripted.pending()) === 0, 'the provider request to be aborted');

    const state = (await owner.get(path)).data;
    expect(state.status).toBe('cancelled');
    expect(state.turn.status).toBe('stopped');
    expect((await send(owner, path, 'Anything else?')).error?.code).toBe('AI_SESSION_CLOSED');
  });
});

describe('bad input', () => {
  it('refuses empty, blank, oversized, unknown-field and non-JSON messages with a shared code, appending nothing', async () => {
    const { owner, path, scripted, watcher } = await turnSetup([finalAnswer('Read all 8000 characters.', 'chat')]);
    const before = (await owner.get(path)).data;

    const cases: Array<[string, unknown, string]> = [
      ['empty', { content: '' }, 'VALIDATION_FAILED'],
      ['whitespace only', { content: ' \n\t  ' }, 'VALIDATION_FAILED'],
      ['8,001 characters', { content: 'x'.repeat(8_001) }, 'VALIDATION_FAILED'],
      ['an unknown field', { content: 'Tighten the step.', model: 'gpt-5' }, 'VALIDATION_FAILED'],
      ['a wrong type', { content: 'Tighten the step.', suggestOnly: 'yes' }, 'VALIDATION_FAILED'],
      ['no content', {}, 'VALIDATION_FAILED'],
      ['not JSON', '{"content": "Tighten the step."', 'INVALID_JSON'],
    ];
    for (const [name, body, code] of cases) {
      const res = await owner.post(`${path}/messages`, body);
      expect(res.status, name).toBeGreaterThanOrEqual(400);
      expect(res.status, name).toBeLessThan(500);
      expect(res.error?.code, name).toBe(code);
      expect(isErrorCode(res.error!.code), name).toBe(true);
    }

    const after = (await owner.get(path)).data;
    expect(after.messages.items).toEqual(before.messages.items);
    expect(after.lastSeq).toBe(before.lastSeq);
    expect(after.turn).toBeNull();
    expect(await scripted.requests()).toEqual([]);

    // The limit itself is accepted.
    const end = await runTurn(owner, path, watcher, 'x'.repeat(8_000));
    expect(end.type).toBe('turn.finished');
  });

  it("refuses a viewer's message with 403 and stores nothing", async () => {
    const { owner, path, scripted, member } = await turnSetup([]);
    const viewer = await member('viewer');
    const before = (await owner.get(path)).data;
    const res = await send(viewer, path, 'Let me in.');
    expect(res.status).toBe(403);
    expect(res.error?.code).toBe('FORBIDDEN');
    const after = (await owner.get(path)).data;
    expect([after.messages.items, after.lastSeq, after.turn]).toEqual([before.messages.items, before.lastSeq, null]);
    expect(await scripted.requests()).toEqual([]);
  });

  it("answers the profile's code when AI is off for the user (no profile, no system default), and stores nothing", async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const availability = (await owner.get('/api/users/me/llm-profile')).data.effectiveAvailability;
    expect(availability).toMatchObject({ available: false, code: 'AI_DISABLED', source: null });
    const before = (await owner.get(path)).data;

    const res = await send(owner, path, 'Tighten the step.');
    expect(res.error?.code).toBe(availability.code);
    expect(res.status).toBe(ERROR_CODES.AI_DISABLED.status);
    const after = (await owner.get(path)).data;
    expect([after.messages.items, after.lastSeq, after.turn]).toEqual([before.messages.items, before.lastSeq, null]);
  });
});

describe('repairs', () => {
  it('validates what the model staged, asks for one repair with the errors, and finishes valid once the model fixes it', async () => {
    const project = await supportDeskProject();
    const original = (await currentStep(project.owner, project.base)).markdown;
    const broken = original.replace('nodeId: "classify-issue"', 'nodeId: "classify-every-ticket"');
    const fixed = original.replace('Classify the ticket with the categories of the support policy.', 'Classify the ticket with the categories of the support policy, citing its rule.');
    expect(broken).not.toBe(original);
    const { owner, projectId, path, scripted, watcher } = await withSession(project, [
      stage(broken, 'call_broken'),
      finalAnswer('Made the step cite the policy.'),
      stage(fixed, 'call_fixed'),
      finalAnswer('Made the step cite the policy section.'),
    ]);

    const end = await runTurn(owner, path, watcher, 'Make the step cite the policy section.');
    expect(end.type).toBe('turn.finished');
    expect(end.payload).toMatchObject({ responseType: 'change', valid: true, needsManualFix: false, repairs: 1, summary: 'Made the step cite the policy section.' });

    const types = turnEvents(watcher, end.turnId).map((e) => e.type);
    expect(types.indexOf('turn.validating')).toBeLessThan(types.indexOf('turn.repairing'));
    expect(turnEvents(watcher, end.turnId, 'turn.repairing').map((e) => e.payload)).toEqual([{ attempt: 1, maxRepairs: 2, errorCount: expect.any(Number) }]);
    expect(turnEvents(watcher, end.turnId, 'change.validated').map((e) => e.payload.valid)).toEqual([false, true]);

    // The repair request travels as the last user message of the next model request.
    const requests = await scripted.requests();
    expect(requests).toHaveLength(4);
    const repair = (requests[2]!.body as any).messages.at(-1);
    expect(repair.role).toBe('user');
    expect(repair.content).toMatch(/^REPAIR_REQUEST: /);
    expect(repair.content).toContain('attempt: 1 of 2');
    expect(repair.content).toContain('STEP_NODE_ID_MISMATCH');

    const state = (await owner.get(path)).data;
    expect(state.validation.valid).toBe(true);
    expect(state.latestSuggestion.changeSetId).toBe(end.payload.changeSetId);
    const changes = (await owner.get(`${path}/changes`)).data.files;
    expect(changes.find((f: any) => f.key === STEP_KEY)?.after).toBe(fixed);
    expect((await auditTypes(projectId)).filter((t) => t === 'ai.validation.failed')).toHaveLength(1);
  });

  it('gives up after two repairs: needsManualFix, not valid, audited, and the staged change stays for a person to fix', async () => {
    const project = await supportDeskProject();
    const original = (await currentStep(project.owner, project.base)).markdown;
    const noGoal = original.replace('## Goal\n\nClassify the ticket with the categories of the support policy.\n\n', '');
    expect(noGoal).not.toContain('## Goal');
    const { owner, projectId, path, scripted, watcher } = await withSession(project, [
      stage(noGoal, 'call_stage'),
      finalAnswer('Shortened the step.'),
      finalAnswer('Shortened the step (checked).'),
      finalAnswer('Shortened the step (checked twice).'),
    ]);

    const end = await runTurn(owner, path, watcher, 'Shorten the step.');
    expect(end.type).toBe('turn.finished');
    expect(end.payload).toMatchObject({ responseType: 'change', valid: false, needsManualFix: true, repairs: 2 });
    expect(turnEvents(watcher, end.turnId, 'turn.repairing').map((e) => e.payload.attempt)).toEqual([1, 2]);
    const requests = await scripted.requests();
    expect(requests).toHaveLength(4);
    expect((requests[3]!.body as any).messages.at(-1).content).toContain('attempt: 2 of 2');

    const failed = (await auditRows(projectId)).filter((r) => r.event_type === 'ai.validation.failed');
    expect(failed).toHaveLength(3);
    for (const row of failed) {
      expect(row.code).toBe('AI_VALIDATION_FAILED');
      expect(JSON.parse(row.payload_json).codes).toContain('STEP_MISSING_GOAL');
    }

    // The overlay keeps the change: a person fixes it in the diff.
    const state = (await owner.get(path)).data;
    expect(state.latestSuggestion.changeSetId).toBe(end.payload.changeSetId);
    expect(state.validation.valid).toBe(false);
    expect(state.validation.errors.map((e: any) => e.code)).toContain('STEP_MISSING_GOAL');
    const changes = (await owner.get(`${path}/changes`)).data.files;
    expect(changes.find((f: any) => f.key === STEP_KEY)?.after).toBe(noGoal);
  });
});

describe('suggest only', () => {
  it('offers no staging tools, refuses a stage the model tries anyway, and finishes as chat', async () => {
    const { owner, base } = await supportDeskProject();
    const created = await owner.post(`${base}/ai/sessions`, { workflowId: WF, targetType: 'workflow', targetId: WF, mode: 'optimize' });
    expect(created.status).toBe(201);
    const sessionId = created.data.sessionId as string;
    const path = `${base}/ai/sessions/${sessionId}`;
    const scripted = await modelPlaying(owner, [
      stage('---\nnodeId: "classify-issue"\n---\n\n## Goal\n\nx\n', 'call_stage'),
      finalAnswer('I suggest citing the policy section in classify-issue.', 'change'),
    ]);
    const watcher = await connect(owner, base, sessionId);

    const end = await runTurn(owner, path, watcher, 'How could this workflow be clearer?', { suggestOnly: true });
    expect(end.type).toBe('turn.finished');
    expect(end.payload).toMatchObject({ responseType: 'chat', changeSetId: null, valid: null, needsManualFix: false });

    const requests = await scripted.requests();
    const offered = (requests[0]!.body as any).tools.map((t: any) => t.function.name);
    expect(offered).toContain('builder_step_read');
    expect(offered).not.toContain('builder_change_stage');
    expect(offered).not.toContain('builder_change_discard');
    expect(turnEvents(watcher, end.turnId, 'tool.finished').map((e) => [e.payload.toolCallId, e.payload.ok, e.payload.code])).toEqual([
      ['call_stage', false, 'AI_TOOL_NOT_ALLOWED'],
    ]);
    const toolMessage = (requests[1]!.body as any).messages.find((m: any) => m.role === 'tool' && m.tool_call_id === 'call_stage');
    expect(JSON.parse(toolMessage.content)).toMatchObject({ ok: false, error: { code: 'AI_TOOL_NOT_ALLOWED' } });

    expect(watcher.events().filter((e) => e.type === 'change.staged')).toEqual([]);
    expect((await owner.get(`${path}/changes`)).data.files).toEqual([]);
    const state = (await owner.get(path)).data;
    expect(state.latestSuggestion).toBeNull();
    expect(state.turn).toMatchObject({ suggestOnly: true, context: { suggestOnly: true } });
    expect(state.turn.context.tools).not.toContain('builder.change.stage');
    expect(turnEvents(watcher, end.turnId, 'turn.accepted')[0].payload.suggestOnly).toBe(true);
  });
});

describe('a viewer joining mid-turn', () => {
  it('replays the turn so far from lastSeq 0, then receives the rest live, in order', async () => {
    const { owner, base, sessionId, path, scripted, member } = await turnSetup([
      readContext(),
      // Long enough for the viewer to connect while this call is held.
      { reply: { toolCalls: [toolCall('builder.step.read', { workflowId: WF, nodeId: STEP }, 'call_step')] }, delayMs: 1_500 },
      finalAnswer('Read the step.', 'chat'),
    ]);
    const viewer = await member('viewer');
    const turnId = await startTurn(owner, path, 'Read the step.');
    await waitFor(async () => (await scripted.requests()).length === 2 && (await scripted.pending()) === 1, 'the second model call in flight');

    const late = await connect(viewer, base, sessionId, 0);
    const end = await turnEnd(late, turnId);
    expect(end.type).toBe('turn.finished');

    const frames = late.texts().filter((m) => m.type === 'events');
    const replayed = frames.filter((f) => f.replay).flatMap((f) => f.events);
    const live = frames.filter((f) => !f.replay).flatMap((f) => f.events);
    expect(frames.findIndex((f) => !f.replay)).toBeGreaterThan(frames.findLastIndex((f) => f.replay));
    const replayedTypes = replayed.map((e: any) => e.type);
    expect(replayedTypes.slice(0, 4)).toEqual(['session.created', 'turn.accepted', 'turn.context', 'llm.requested']);
    expect(replayedTypes).toContain('tool.finished');
    expect(replayed.filter((e: any) => e.type === 'llm.requested').map((e: any) => e.payload.iteration)).toEqual([1, 2]);
    expect(live.map((e: any) => e.type)).toEqual(expect.arrayContaining(['llm.completed', 'tool.started', 'tool.finished', 'turn.finished']));
    expect(live[0]).toMatchObject({ type: 'llm.completed', payload: { iteration: 2 } });
    expect(live.at(-1).type).toBe('turn.finished');
    const all = late.events();
    expect(all[0].seq).toBe(1);
    expectOrdered(all);
    late.close();
  });
});

describe('history window', () => {
  it('sends the latest 6 messages raw and one summary of the older ones after 4 turns', async () => {
    const answers = [1, 2, 3, 4, 5].map((i) => finalAnswer(`Answer ${i}.`, 'chat'));
    const { owner, path, scripted, watcher } = await turnSetup(answers);
    for (const i of [1, 2, 3, 4]) expect((await runTurn(owner, path, watcher, `Request ${i}.`)).type).toBe('turn.finished');
    expect(await conversation(owner, path)).toHaveLength(8);
    await runTurn(owner, path, watcher, 'Request 5.');

    const requests = await scripted.requests();
    const messagesOf = (i: number) => (requests[i]!.body as any).messages.map((m: any) => ({ role: m.role, content: m.content }));
    const raw = (from: number) =>
      [from, from + 1, from + 2].flatMap((i) => [
        { role: 'user', content: `Request ${i}.` },
        { role: 'assistant', content: `Answer ${i}.` },
      ]);
    // Turn 4 still fits: six raw messages, no summary.
    expect(messagesOf(3).slice(1)).toEqual([...raw(1), { role: 'user', content: 'Request 4.' }]);
    // Turn 5: a summary of turn 1 opening the latest six raw (roles keep alternating), then the new message.
    expect(messagesOf(4)[0].role).toBe('system');
    const [firstRaw, ...restRaw] = raw(2);
    expect(messagesOf(4).slice(1)).toEqual([
      { role: 'user', content: `${SUMMARY_HEADING}\n- User asked: Request 1.\n- Assistant answered: Answer 1.\n\n${firstRaw!.content}` },
      ...restRaw,
      { role: 'user', content: 'Request 5.' },
    ]);
    expect((await owner.get(path)).data.turn.context.history).toEqual({ rawMessages: 6, summarizedMessages: 2 });
  });
});
