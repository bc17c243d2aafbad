/**
 * Honest endings after a stage: the AI only stages, a person applies. A turn that staged a change
 * and answers "I've applied the changes, they're live now" (or "已应用，现在已生效") finishes with
 * its change staged and a correction under the summary, in the end event and in the conversation;
 * an honest answer finishes as it was written. Real `openai` SDK → scripted server, in workerd.
 */
import { describe, expect, it } from 'vitest';
import { STEP, WF, connect, currentStep, supportDeskProject, stepChangeSet, stepSession } from './sessions.ts';
import { finalAnswer, send, toolCall, turnEnd, useScriptedModel } from './turns.ts';
import { guardLogs } from './log-canary.ts';
import type { ScriptStep } from './scripted-model.ts';

guardLogs();

const STEP_KEY = `step:${WF}/${STEP}`;
const NOTE_EN = 'Correction: this change is staged for review and not applied. Nothing is live until a person reviews and applies it.';
const NOTE_ZH = '更正：此修改已暂存待审阅，尚未应用。在有人审阅并应用之前，它不会生效。';

async function stagingTurn(answer: ScriptStep) {
  const { owner, base } = await supportDeskProject();
  const sessionId = await stepSession(owner, base);
  const path = `${base}/ai/sessions/${sessionId}`;
  const before = await currentStep(owner, base);
  const changeSet = {
    schemaVersion: '1.0',
    targetType: 'step',
    mode: 'optimize',
    operations: [{ op: 'upsert', targetType: 'step', target: { workflowId: WF, nodeId: STEP }, payload: { stepMarkdown: `${before.markdown.trimEnd()}\n\nCite the policy section.\n` } }],
    impact: { objects: [STEP_KEY] },
  };
  const scripted = await useScriptedModel(owner, [{ toolCalls: [toolCall('builder.change.stage', { changeSet }, 'call_stage')] }, answer, finalAnswer('never asked for')]);
  const watcher = await connect(owner, base, sessionId);
  const accepted = await send(owner, path, 'Make classify-issue cite the policy section.');
  expect(accepted.status).toBe(202);
  const end = await turnEnd(watcher, accepted.data.turnId, 25_000);
  watcher.close();
  const requests = await scripted.requests();
  const state = (await owner.get(path)).data;
  const changes = (await owner.get(`${path}/changes`)).data;
  return { end, requests, state, changes };
}

describe('a turn that staged a change and says it was applied', () => {
  it.each([
    ['an English JSON answer', finalAnswer("I've applied the changes to classify-issue, so they're live now: the step cites the policy section."), NOTE_EN],
    ['a markdown list in prose', { content: '**Changes applied:**\n- The step now cites the policy section.' }, NOTE_EN],
    ['a Chinese answer', { content: '已更新 classify-issue 步骤，加入了引用政策条款的规则。修改已应用，现在已生效。' }, NOTE_ZH],
  ] as Array<[string, ScriptStep, string]>)('%s: finishes staged, the summary followed by the correction', async (_, answer, note) => {
    const turn = await stagingTurn(answer);
    // No second request: the words are corrected, not sent back.
    expect(turn.requests).toHaveLength(2);
    expect(turn.end.type).toBe('turn.finished');
    expect(turn.end.payload).toMatchObject({ responseType: 'change', version: expect.any(Number), repairs: 0 });
    expect(turn.end.payload.staged.files).toEqual([{ key: STEP_KEY, action: 'M' }]);
    const summary: string = turn.end.payload.summary;
    expect(summary.endsWith(`\n\n${note}`)).toBe(true);
    // The chat shows the same words, and the change is still only staged.
    const assistant = turn.state.messages.items.filter((m: any) => m.role === 'assistant');
    expect(assistant.at(-1).content).toBe(summary);
    expect(turn.changes.files.map((f: any) => f.key)).toEqual([STEP_KEY]);
  });

  it('an honest answer finishes as it was written', async () => {
    const honest = "I've staged a rule that cites the policy section; once you apply it, it will be live.";
    const turn = await stagingTurn(finalAnswer(honest));
    expect(turn.end).toMatchObject({ type: 'turn.finished', payload: { responseType: 'change', summary: honest, repairs: 0 } });
  });
});

describe('after a person applied the session’s change', () => {
  it('"it was applied and is live" is true: a chat turn saying so finishes as written, with no correction', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const step = await currentStep(owner, base);
    const staged = await owner.post(`${path}/stage`, { changeSet: stepChangeSet(`${step.markdown.trimEnd()}\n\nCite the policy section.\n`) });
    expect(staged.status).toBe(200);
    const applied = await owner.post(`${path}/apply`, { changeSetId: staged.data.changeSetId, contentHash: staged.data.contentHash, confirmSource: 'ui_manual_apply' });
    expect(applied.status, JSON.stringify(applied.error)).toBe(200);

    const truth = 'Yes: the change was applied and is live now.';
    const scripted = await useScriptedModel(owner, [finalAnswer(truth, 'chat'), finalAnswer('never asked for', 'chat')]);
    const watcher = await connect(owner, base, sessionId);
    const accepted = await send(owner, path, 'Is the policy rule live?');
    expect(accepted.status).toBe(202);
    const end = await turnEnd(watcher, accepted.data.turnId, 25_000);
    watcher.close();
    expect(end).toMatchObject({ type: 'turn.finished', payload: { summary: truth, repairs: 0 } });
    expect(await scripted.requests()).toHaveLength(1);
  });
});
