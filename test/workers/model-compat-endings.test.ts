/**
 * Real, imperfect models (issue 14), part two: honest endings and tool errors that teach. A model
 * that claims changes it never staged is asked to stage them and, failing that, the turn ends
 * with a visible "no changes staged" outcome; a model that answers nonsense every time ends at the
 * loop limit with the working copy untouched; every tool error carries an example call, and the
 * same failing call sent twice gets a plainer hint. Real `openai` SDK → scripted server, in workerd.
 */
import { describe, expect, it } from 'vitest';
import type { RecordedChat, ScriptStep } from './scripted-model.ts';
import { STEP, WF, connect, currentStep, supportDeskProject, stepChangeSet, stepSession } from './sessions.ts';
import { finalAnswer, send, toolCall, turnEnd, useScriptedModel } from './turns.ts';
import { guardLogs } from './log-canary.ts';
import { MAX_REPAIRS } from '../../shared/ai/turn.ts';
import type { ServerQuirks } from '../support/scripted-openai/types.ts';

// Nothing this file's faults make the Worker or the session object log may carry a key, an email or a hash.
guardLogs();

const STEP_KEY = `step:${WF}/${STEP}`;

async function runTurn(steps: ScriptStep[], before?: (s: { owner: any; path: string; markdown: string }) => Promise<void>, quirks?: ServerQuirks) {
  const { owner, base } = await supportDeskProject();
  const sessionId = await stepSession(owner, base);
  const path = `${base}/ai/sessions/${sessionId}`;
  const markdown = (await currentStep(owner, base)).markdown;
  await before?.({ owner, path, markdown });
  const scripted = await useScriptedModel(owner, steps, quirks ? { quirks } : {});
  const watcher = await connect(owner, base, sessionId);
  const accepted = await send(owner, path, 'Improve the classify-issue step.');
  expect(accepted.status).toBe(202);
  const end = await turnEnd(watcher, accepted.data.turnId, 25_000);
  const requests = await scripted.requests();
  watcher.close();
  const events = watcher.events().filter((e) => e.turnId === accepted.data.turnId);
  return { owner, path, markdown, end, events, requests };
}

function toolResult(requests: RecordedChat[], toolCallId: string): any {
  for (const request of [...requests].reverse()) {
    const message = (request.body as any).messages.find((m: any) => m.role === 'tool' && m.tool_call_id === toolCallId);
    if (message) return JSON.parse(message.content);
  }
  throw new Error(`no tool result for ${toolCallId}`);
}

/** The user-role repair requests the loop sent, in order. */
function repairRequests(requests: RecordedChat[]): string[] {
  const last = requests.at(-1)!.body as any;
  return last.messages.filter((m: any) => m.role === 'user' && String(m.content).startsWith('REPAIR_REQUEST')).map((m: any) => m.content as string);
}

const DELETE_WORKFLOW = {
  schemaVersion: '1.0',
  targetType: 'step',
  mode: 'optimize',
  operations: [{ op: 'delete', targetType: 'workflow', target: { workflowId: WF } }],
};

describe('honest endings', () => {
  it('never shows a claim of success without staging as success: repair requests, then a visible "no changes staged" ending', async () => {
    const claim = finalAnswer('Updated classify-issue to cite the policy section.');
    const turn = await runTurn([{ toolCalls: [toolCall('builder.change.stage', { changeSet: DELETE_WORKFLOW }, 'call_stage')] }, claim, claim, claim]);

    expect(turn.end.type).toBe('turn.failed');
    expect(turn.end.payload).toMatchObject({ code: 'AI_NO_CHANGES_STAGED', outcome: 'no_changes_staged' });
    expect(turn.end.payload.message).toMatch(/^No changes staged: the AI said it made changes, but your last builder_change_stage call failed \(AI_APPLY_UNSUPPORTED: /u);
    expect(turn.events.some((e) => e.type === 'turn.finished')).toBe(false);
    expect(turn.events.filter((e) => e.type === 'turn.repairing').map((e) => e.payload.attempt)).toEqual([1, 2]);

    // Each repair says exactly why nothing was staged and which tool to call.
    const repairs = repairRequests(turn.requests);
    expect(repairs).toHaveLength(2);
    expect(repairs[0]).toContain('nothing is staged: your last builder_change_stage call failed (AI_APPLY_UNSUPPORTED');
    expect(repairs[0]).toContain('call builder_change_stage with {"changeSet": …}');

    // Nothing staged, the false summary is nowhere in the conversation, and the turn is failed.
    expect((await turn.owner.get(`${turn.path}/changes`)).data.files).toEqual([]);
    const state = (await turn.owner.get(turn.path)).data;
    expect(state.turn.status).toBe('failed');
    expect(state.messages.items.map((m: any) => m.role)).toEqual(['user']);
  });

  it('lets the model recover after the repair: it stages, and the ending lists what the system staged', async () => {
    const { owner, base } = await supportDeskProject();
    const markdown = `${(await currentStep(owner, base)).markdown.trimEnd()}\n\nCite the policy section.\n`;
    const turn = await runTurn([
      finalAnswer('Updated classify-issue (3 steps and the graph changed).'),
      { toolCalls: [toolCall('builder.change.stage', { changeSet: stepChangeSet(markdown) }, 'call_stage')] },
      finalAnswer('Updated classify-issue (3 steps and the graph changed).'),
    ]);
    expect(repairRequests(turn.requests)[0]).toContain('no builder_change_stage call succeeded in this turn');
    expect(turn.end).toMatchObject({ type: 'turn.finished', payload: { responseType: 'change', valid: true, repairs: 1 } });
    // The model's account says three steps and a graph; the system says what it staged.
    expect(turn.end.payload.staged).toEqual({ files: [{ key: STEP_KEY, action: 'M' }], text: `Staged 1 file: ${STEP_KEY} (modified).` });
  });

  // Real servers (OpenAI, DeepSeek; the scripted server checks the same) refuse a `tool` message
  // that answers no tool call: the repair of a final answer's changeSet must not send one.
  it("repairs a final answer's changeSet that cannot be staged in a conversation a strict server accepts", async () => {
    const { owner, base } = await supportDeskProject();
    const markdown = `${(await currentStep(owner, base)).markdown.trimEnd()}\n\nCite the policy section.\n`;
    const wrong = { ...stepChangeSet(markdown), operations: [{ ...stepChangeSet(markdown).operations[0], target: { workflowId: 'no-such-workflow', nodeId: 'classify-issue' } }] };
    const turn = await runTurn([
      finalAnswer('Added a citation rule.', 'change', { changeSet: wrong }),
      finalAnswer('Added a citation rule.', 'change', { changeSet: stepChangeSet(markdown) }),
    ]);
    expect(turn.end).toMatchObject({ type: 'turn.finished', payload: { responseType: 'change', valid: true, repairs: 1 } });
    const second = (turn.requests[1]!.body as any).messages as any[];
    expect(second.filter((m) => m.role === 'tool')).toEqual([]);
    expect(second.at(-2)).toMatchObject({ role: 'assistant' });
    expect(second.at(-1).content).toContain('the changeSet in your answer could not be staged');
    expect(second.at(-1).content).toContain('no-such-workflow');
  });

  it("ends as AI_FINAL_CHANGE_NOT_STAGED, never with the answer's summary, when its changeSet fails over a version staged earlier", async () => {
    const { owner, base } = await supportDeskProject();
    const first = `${(await currentStep(owner, base)).markdown.trimEnd()}\n\nFIRST version.\n`;
    const second = `${(await currentStep(owner, base)).markdown.trimEnd()}\n\nSECOND version.\n`;
    const wrong = { ...stepChangeSet(second), operations: [{ ...stepChangeSet(second).operations[0], target: { workflowId: 'no-such-workflow', nodeId: 'classify-issue' } }] };
    const badAnswer = finalAnswer('Replaced it with the SECOND version.', 'change', { changeSet: wrong });
    const turn = await runTurn([
      { toolCalls: [toolCall('builder.change.stage', { changeSet: stepChangeSet(first) }, 'call_first')] },
      ...Array.from({ length: 1 + MAX_REPAIRS }, () => badAnswer),
    ]);
    expect(turn.end).toMatchObject({ type: 'turn.failed', payload: { code: 'AI_FINAL_CHANGE_NOT_STAGED' } });
    expect(turn.end.payload.message).toContain('keeps version 1');
    const changes = await turn.owner.get(`${turn.path}/changes`);
    const staged = changes.data.files.find((f: any) => f.key === STEP_KEY);
    expect(staged.after).toContain('FIRST version.');
    expect(staged.after).not.toContain('SECOND version.');
  });

  it('says that a version staged earlier stays in the draft when the turn then fails', async () => {
    const { owner, base } = await supportDeskProject();
    const markdown = `${(await currentStep(owner, base)).markdown.trimEnd()}\n\nStaged before the failure.\n`;
    const turn = await runTurn([{ toolCalls: [toolCall('builder.change.stage', { changeSet: stepChangeSet(markdown) }, 'call_stage')] }, { fault: 'insufficient_quota' }]);
    expect(turn.end).toMatchObject({ type: 'turn.failed' });
    expect(turn.end.payload.hints).toContain('Version 1, staged earlier in this turn, stays in the draft: review it, or discard it.');
  });

  it('ends a model that answers nonsense every iteration at AI_TOOL_LOOP_LIMIT_EXCEEDED, with the overlay intact', async () => {
    const nonsense = (i: number): ScriptStep => ({
      toolCalls: [{ name: 'builder_change_stage', arguments: '{"changeSet": banana', id: `call_x${i}` }, { name: 'builder_step_read', arguments: { nodeId: 42, workflowId: null }, id: `call_y${i}` }],
    });
    let before: { contentHash: string; files: unknown } | null = null;
    const turn = await runTurn(Array.from({ length: 10 }, (_, i) => nonsense(i)), async ({ owner, path, markdown }) => {
      const staged = await owner.post(`${path}/stage`, { changeSet: stepChangeSet(`${markdown}\nA person's edit.\n`) });
      expect(staged.status).toBe(200);
      const changes = (await owner.get(`${path}/changes`)).data;
      before = { contentHash: changes.contentHash, files: changes.files };
    });
    expect(turn.end).toMatchObject({ type: 'turn.failed', payload: { code: 'AI_TOOL_LOOP_LIMIT_EXCEEDED' } });
    expect(turn.events.filter((e) => e.type === 'llm.requested')).toHaveLength(8);
    expect(turn.events.filter((e) => e.type === 'tool.finished').every((e) => e.payload.ok === false)).toBe(true);
    expect(turn.events.filter((e) => e.type === 'change.staged')).toEqual([]);
    // Each refusal still teaches: the code, what was wrong, and a call to copy.
    expect(toolResult(turn.requests, 'call_x0').error.hints[0]).toBe('Send the arguments as one JSON object.');
    // The seventh iteration's results are the last ones sent back (the eighth hits the limit).
    const refusal = toolResult(turn.requests, 'call_x6');
    expect(refusal.error).toMatchObject({ code: 'AI_TOOL_EXECUTION_ERROR', example: { tool: 'builder_change_stage' } });
    expect(refusal.error.hints[0]).toMatch(/^You already sent exactly this call/u);
    const after = (await turn.owner.get(`${turn.path}/changes`)).data;
    expect({ contentHash: after.contentHash, files: after.files }).toEqual(before);
  });
});

// GPT-4o-mini, Llama 3 on Ollama and Qwen often answer "improve the step" in prose, saying they
// changed it or pasting the new Markdown, and never call the staging tool.
describe('a change claimed only in words', () => {
  /** The roles each request sent after the system prompt; the strict server refused any other shape. */
  const roles = (request: RecordedChat) => ((request.body as any).messages as any[]).slice(1).map((m) => m.role);
  const stepFile = ['```markdown', '---', 'id: classify-issue', '---', '# Classify the issue', '', 'Read the ticket.', 'Pick a queue.', 'Cite the policy section.', '```'];
  /** The new Markdown in the answer, no word of a change. */
  const pasted = ['The step for you:', ...stepFile].join('\n');

  it.each([
    ['a claim in English', "I've updated the classify-issue step to cite the policy section."],
    ['a claim in Chinese', '已更新 classify-issue 步骤，加入了引用政策条款的规则。'],
    ['new contents pasted in the answer', pasted],
  ])('%s, nothing staged: one corrective user message, then a visible "no changes staged" ending', async (_, claim) => {
    const turn = await runTurn([{ content: claim }, { content: claim }, finalAnswer('never asked for')], undefined, { alternatingRoles: true });

    expect(turn.requests).toHaveLength(2);
    expect(turn.requests.map(roles)).toEqual([['user'], ['user', 'assistant', 'user']]);
    const repairs = repairRequests(turn.requests);
    expect(repairs).toHaveLength(1);
    expect(repairs[0]).toContain('nothing is staged: no builder_change_stage call succeeded in this turn');
    expect(repairs[0]).toContain('call builder_change_stage with {"changeSet": …}');
    expect(repairs[0]).toContain('say plainly that you made no change');

    expect(turn.end.type).toBe('turn.failed');
    expect(turn.end.payload).toMatchObject({ code: 'AI_NO_CHANGES_STAGED', outcome: 'no_changes_staged' });
    expect(turn.events.some((e) => e.type === 'turn.finished')).toBe(false);
    expect((await turn.owner.get(`${turn.path}/changes`)).data.files).toEqual([]);
    const state = (await turn.owner.get(turn.path)).data;
    expect(state.turn.status).toBe('failed');
    expect(state.messages.items.map((m: any) => m.role)).toEqual(['user']);
  });

  it('a model that stages after the corrective message ends with the change staged', async () => {
    const { owner, base } = await supportDeskProject();
    const markdown = `${(await currentStep(owner, base)).markdown.trimEnd()}\n\nCite the policy section.\n`;
    const turn = await runTurn([
      { content: pasted },
      { toolCalls: [toolCall('builder.change.stage', { changeSet: stepChangeSet(markdown) }, 'call_stage')] },
      finalAnswer('Added a rule to cite the policy section.'),
    ]);
    expect(repairRequests(turn.requests)[0]).toContain('your answer shows new file contents');
    expect(turn.end).toMatchObject({ type: 'turn.finished', payload: { responseType: 'change', valid: true, repairs: 1 } });
    expect(turn.end.payload.staged.files).toEqual([{ key: STEP_KEY, action: 'M' }]);
  });

  it('a model that says plainly after the corrective message that it changed nothing ends normally, without a change', async () => {
    const turn = await runTurn([{ content: "I've updated the step." }, { content: 'I made no change: the step already cites the policy section.' }]);
    expect(turn.end).toMatchObject({ type: 'turn.finished', payload: { responseType: 'chat', version: null, staged: null, repairs: 1 } });
    expect(turn.end.payload.summary).toBe('I made no change: the step already cites the policy section.');
  });

  it.each([
    ['an explanation', 'The step reads the ticket, picks a queue and already cites the policy section.'],
    ['a question back', 'Should I add a rule that cites the policy section, or keep the step as it is?'],
    ['"no change needed"', 'No change needed: I have not changed anything, the step already cites the policy section.'],
    ['a Chinese "no change"', '无需修改：步骤已经引用了政策条款，我没有修改任何内容。'],
  ])('%s ends normally at once, with no corrective message', async (_, answer) => {
    const turn = await runTurn([{ content: answer }]);
    expect(turn.requests).toHaveLength(1);
    expect(turn.end).toMatchObject({ type: 'turn.finished', payload: { responseType: 'chat', summary: answer, repairs: 0 } });
  });
});

// vLLM without the right --tool-call-parser, llama.cpp without --jinja, Ollama models without tool
// support: the calls arrive, but their arguments are text no repair reads.
describe('tool calls whose arguments cannot be read', () => {
  const RAW = 'ARGS-MARKER-7f3a';
  const broken = (i: number): ScriptStep => ({ toolCalls: [{ name: 'builder_step_read', arguments: `<|tool▁sep|>workflowId=${WF} nodeId=${RAW}`, id: `call_b${i}` }] });

  it('end the turn after two responses in a row with a hint naming the tool-call parser, never the arguments or the tool error', async () => {
    const turn = await runTurn([broken(0), broken(1), broken(2), finalAnswer('never asked for', 'chat')], undefined, { alternatingRoles: true });
    expect(turn.requests).toHaveLength(2);
    // The first refusal went back to the model as the answer of its call: a conversation a strict server accepts.
    expect(toolResult(turn.requests, 'call_b0').error.message).toBe('The arguments are not valid JSON; the tool did not run.');

    expect(turn.end).toMatchObject({ type: 'turn.failed', payload: { code: 'AI_TOOL_ARGUMENTS_UNREADABLE' } });
    const hints = turn.end.payload.hints.join('\n');
    expect(hints).toContain('--enable-auto-tool-choice --tool-call-parser');
    expect(hints).toContain('hermes');
    expect(hints).toContain('--jinja');
    expect(hints).toMatch(/Ollama: choose a model whose template supports tools/u);
    const told = JSON.stringify(turn.end.payload);
    expect(told).not.toContain(RAW);
    expect(told).not.toContain('tool▁sep');
    expect(told).not.toContain('not valid JSON');
    expect(told).not.toContain('AI_TOOL_EXECUTION_ERROR');
    expect((await turn.owner.get(`${turn.path}/changes`)).data.files).toEqual([]);
  });

  it('let the turn go on when a readable call comes between them', async () => {
    const turn = await runTurn([broken(0), { toolCalls: [toolCall('builder.step.read', { workflowId: WF, nodeId: STEP }, 'call_read')] }, broken(1), finalAnswer('The step is fine as it is.', 'chat')]);
    expect(turn.requests).toHaveLength(4);
    expect(turn.end).toMatchObject({ type: 'turn.finished', payload: { responseType: 'chat', summary: 'The step is fine as it is.' } });
  });
});

// A chatty model puts a whole essay into assistantSummary: it is cut like prose, never sent back for its length.
describe('a very long summary in the JSON answer', () => {
  it('finishes with the summary cut to the chat limit, in one request', async () => {
    const long = 'The classify-issue step reads the ticket and picks a queue. '.repeat(5_400);
    expect(long.length).toBeGreaterThan(320_000);
    const turn = await runTurn([{ content: JSON.stringify({ responseType: 'chat', assistantSummary: long }) }, finalAnswer('never asked for', 'chat')]);
    expect(turn.requests).toHaveLength(1);
    expect(turn.end).toMatchObject({ type: 'turn.finished', payload: { responseType: 'chat', repairs: 0 } });
    expect(turn.end.payload.summary).toHaveLength(2000);
    expect(turn.end.payload.summary.startsWith('The classify-issue step reads the ticket and picks a queue.')).toBe(true);
  });
});

describe('tool errors that teach', () => {
  it('sends every error with its code, what was wrong and an example call, and a plainer hint when the same call fails twice', async () => {
    const wrong = toolCall('builder.step.read', { workflowId: WF, node: STEP });
    const turn = await runTurn([
      { toolCalls: [{ ...wrong, id: 'call_1' }] },
      { toolCalls: [{ ...wrong, id: 'call_2' }] },
      { toolCalls: [toolCall('builder.change.stage', { changeSet: DELETE_WORKFLOW }, 'call_3')] },
      finalAnswer('I read nothing useful.', 'chat'),
    ]);
    const first = toolResult(turn.requests, 'call_1');
    expect(first).toMatchObject({ ok: false, error: { code: 'AI_TOOL_ARGUMENTS_INVALID' } });
    expect(first.error.message).toContain('nodeId');
    expect(first.error.example).toEqual({ tool: 'builder_step_read', arguments: { workflowId: WF, nodeId: STEP } });
    expect(first.error.hints.some((h: string) => h.startsWith('You already sent exactly this call'))).toBe(false);

    const second = toolResult(turn.requests, 'call_2');
    expect(second.error.code).toBe('AI_TOOL_ARGUMENTS_INVALID');
    expect(second.error.hints[0]).toMatch(/^You already sent exactly this call and it failed with AI_TOOL_ARGUMENTS_INVALID\./u);
    expect(second.error.example).toEqual(first.error.example);

    const stage = toolResult(turn.requests, 'call_3');
    expect(stage.error.code).toBe('AI_APPLY_UNSUPPORTED');
    expect(stage.error.example.tool).toBe('builder_change_stage');
    expect(stage.error.example.arguments.changeSet).toMatchObject({ targetType: 'step', operations: [{ target: { workflowId: WF, nodeId: STEP } }] });
    expect(turn.end).toMatchObject({ type: 'turn.finished', payload: { responseType: 'chat' } });
  });
});
