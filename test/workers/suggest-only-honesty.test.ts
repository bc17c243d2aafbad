/**
 * Honest endings in a suggest-only turn: the AI may not stage, so an answer saying it changed
 * something is always false. It is sent back once with the suggest-only wording, then the turn
 * ends with the visible "no changes staged" outcome; a suggestion (proposed contents included)
 * finishes as chat. Real `openai` SDK → scripted server, in workerd.
 */
import { describe, expect, it } from 'vitest';
import type { RecordedChat, ScriptStep } from './scripted-model.ts';
import { STEP, connect, supportDeskProject, stepSession } from './sessions.ts';
import { finalAnswer, send, toolCall, turnEnd, useScriptedModel } from './turns.ts';
import { guardLogs } from './log-canary.ts';
import { errorText } from '../../shared/i18n/error-text.ts';

guardLogs();

async function suggestOnlyTurn(steps: ScriptStep[]) {
  const { owner, base } = await supportDeskProject();
  const sessionId = await stepSession(owner, base);
  const path = `${base}/ai/sessions/${sessionId}`;
  const scripted = await useScriptedModel(owner, steps, { quirks: { alternatingRoles: true } });
  const watcher = await connect(owner, base, sessionId);
  const accepted = await send(owner, path, 'How could the classify-issue step be clearer?', { suggestOnly: true });
  expect(accepted.status).toBe(202);
  const end = await turnEnd(watcher, accepted.data.turnId, 25_000);
  const requests = await scripted.requests();
  watcher.close();
  const events = watcher.events().filter((e) => e.turnId === accepted.data.turnId);
  return { owner, path, end, events, requests };
}

/** The user-role repair requests the loop sent, in order. */
function repairRequests(requests: RecordedChat[]): string[] {
  const last = requests.at(-1)!.body as any;
  return last.messages.filter((m: any) => m.role === 'user' && String(m.content).startsWith('REPAIR_REQUEST')).map((m: any) => m.content as string);
}

const STEP_MARKDOWN = '---\nnodeId: "classify-issue"\n---\n\n## Goal\n\nClassify each ticket and cite the policy section.\n';

describe('a suggest-only turn whose answer claims a change', () => {
  const claimEn = { content: "I've updated the classify-issue step to cite the policy section." };
  const claimZh = { content: '我已经更新了 classify-issue 步骤，加入了引用政策条款的规则。' };
  const claimJson = finalAnswer("I've updated the step's goal; it is ready to apply.", 'change');

  it.each([
    ['a claim in English', [claimEn, claimEn]],
    ['a claim in Chinese', [claimZh, claimZh]],
    ['a JSON "change" answer that says it updated the step', [claimJson, claimJson]],
    [
      'a refused builder_change_stage call, then a claim',
      [{ toolCalls: [toolCall('builder.change.stage', { changeSet: { targetType: 'step' } }, 'call_stage')] }, { content: "I've updated the step as requested." }, { content: "I've updated the step as requested." }],
    ],
  ] as Array<[string, ScriptStep[]]>)('%s: one corrective user message in suggest-only words, then "no changes staged"', async (_, steps) => {
    const turn = await suggestOnlyTurn([...steps, finalAnswer('never asked for', 'chat')]);

    expect(turn.requests).toHaveLength(steps.length);
    const repairs = repairRequests(turn.requests);
    expect(repairs).toHaveLength(1);
    expect(repairs[0]).toContain('you cannot change files in this turn');
    expect(repairs[0]).toContain('describe your suggestion as a suggestion');
    expect(repairs[0]).not.toContain('call builder_change_stage');

    expect(turn.end.type).toBe('turn.failed');
    // Its own code, whose words exist in Chinese too (the general AI_NO_CHANGES_STAGED text would not say why).
    expect(turn.end.payload).toMatchObject({ code: 'AI_SUGGEST_ONLY_NO_CHANGES', outcome: 'no_changes_staged' });
    expect(errorText('AI_SUGGEST_ONLY_NO_CHANGES', 'zh')).toEqual({
      message: 'AI 说它做了修改，但这一轮是“仅建议”：它不能修改任何文件，因此什么都没有改变。',
      hint: '如需让 AI 暂存修改，请关闭“仅建议”后重新发送这条消息。',
    });
    expect(turn.end.payload.message).toContain('suggest-only');
    expect(turn.end.payload.hints.join('\n')).toContain('Suggest only');
    expect(turn.events.some((e) => e.type === 'turn.finished')).toBe(false);
    expect((await turn.owner.get(`${turn.path}/changes`)).data.files).toEqual([]);
    const state = (await turn.owner.get(turn.path)).data;
    expect(state.messages.items.map((m: any) => m.role)).toEqual(['user']);
  });

  it('finishes when the model answers the corrective message with a suggestion', async () => {
    const turn = await suggestOnlyTurn([claimEn, { content: 'I suggest adding a rule that cites the policy section.' }]);
    expect(turn.end).toMatchObject({ type: 'turn.finished', payload: { responseType: 'chat', summary: 'I suggest adding a rule that cites the policy section.', repairs: 1 } });
  });
});

describe('a suggest-only turn whose answer is a suggestion', () => {
  it.each([
    ['a suggestion', 'I suggest changing the goal to "Classify each ticket and cite the policy section".'],
    ['an idea', 'You could add a rule that cites the policy section.'],
    ['a proposed text in a code block', `I suggest this text for the ${STEP} step:\n\n\`\`\`markdown\n${STEP_MARKDOWN}\`\`\``],
    ['a Chinese suggestion', '建议将目标改为“分类工单并引用政策条款”。'],
  ])('%s finishes as chat at once', async (_, answer) => {
    const turn = await suggestOnlyTurn([{ content: answer }]);
    expect(turn.requests).toHaveLength(1);
    expect(turn.end).toMatchObject({ type: 'turn.finished', payload: { responseType: 'chat', changeSetId: null, repairs: 0 } });
  });

  it('a JSON "change" answer that suggests finishes as chat', async () => {
    const turn = await suggestOnlyTurn([finalAnswer('I suggest citing the policy section in classify-issue.', 'change')]);
    expect(turn.end).toMatchObject({ type: 'turn.finished', payload: { responseType: 'chat', summary: 'I suggest citing the policy section in classify-issue.', repairs: 0 } });
  });
});
