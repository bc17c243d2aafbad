// The demo model's moves, one request at a time: which tool it calls next, from the current turn
// only (a second message starts afresh), and how it ends — with what it staged, or honestly.

import { describe, expect, it } from 'vitest';
import { parseChangeSet } from '../../../../shared/ai/change-set.ts';
import type { ChatMessage, OfferedTool, ToolCallsReply, TextReply } from '../types.ts';
import { instructedLanguage, intentOf, languageOf } from './conversation.ts';
import { nextMove } from './model.ts';

const ALL = ['context_get', 'workflow_read', 'step_read', 'agent_read', 'asset_read', 'refs_find', 'change_stage', 'change_validate', 'change_discard'];
const tools = (names = ALL): OfferedTool[] => names.map((n) => ({ name: `builder_${n}` }));

const CONTEXT = {
  session_meta: { workflowId: 'wf', targetType: 'step', targetId: 'one', mode: 'optimize' },
  target_snapshot: { exists: true },
  dependency_digest: {},
  revision_info: { stagedKeys: [] },
};
const STEP = '---\nschemaVersion: "1.1"\nnodeId: "one"\ntype: "step"\n---\n\n# One\n\n## Goal\n\nDo one thing.\n\n## Instructions\n\nAsk. Check. Write it down.\n';

/** The conversation after the model made `calls` and got `results` (envelopes), in order. */
function conversation(request: string, steps: Array<{ name: string; args?: Record<string, unknown>; result: unknown }>, history: ChatMessage[] = []): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: '[Layer-0A] …' }, ...history, { role: 'user', content: request }];
  steps.forEach((step, i) => {
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: step.name, arguments: JSON.stringify(step.args ?? {}) } }] });
    messages.push({ role: 'tool', tool_call_id: `c${i}`, content: JSON.stringify(step.result) });
  });
  return messages;
}

const ok = (data: unknown) => ({ ok: true, data, error: null, meta: { revision: 1 } });
const calls = (reply: unknown) => (reply as ToolCallsReply).toolCalls.map((c) => [c.name, c.arguments]);
const answer = (reply: unknown) => JSON.parse((reply as TextReply).content) as { responseType: string; assistantSummary: string };

describe('the moves of a turn', () => {
  it('starts every turn with builder.context.get, also the second message of a session', () => {
    expect(calls(nextMove({ messages: conversation('Improve it', []), tools: tools() }))).toEqual([['builder_context_get', {}]]);
    // Before, the earlier turn's summary counted as a step taken and the demo called a read with no arguments.
    const history: ChatMessage[] = [{ role: 'user', content: 'Improve it' }, { role: 'assistant', content: 'Staged a clearer version.' }];
    expect(calls(nextMove({ messages: conversation('make it shorter', [], history), tools: tools() }))).toEqual([['builder_context_get', {}]]);
  });

  it('reads the target, stages a changeSet the contract accepts, validates, and summarises what it staged', () => {
    const read = { name: 'builder_context_get', result: ok(CONTEXT) };
    expect(calls(nextMove({ messages: conversation('Improve it', [read]), tools: tools() }))).toEqual([['builder_step_read', { workflowId: 'wf', nodeId: 'one' }]]);
    const stepRead = { name: 'builder_step_read', args: { workflowId: 'wf', nodeId: 'one' }, result: ok({ markdown: STEP }) };
    const stage = nextMove({ messages: conversation('Improve it', [read, stepRead]), tools: tools() }) as ToolCallsReply;
    expect(stage.toolCalls[0]!.name).toBe('builder_change_stage');
    const changeSet = (stage.toolCalls[0]!.arguments as { changeSet: unknown }).changeSet;
    const parsed = parseChangeSet(changeSet, { targetType: 'step', mode: 'optimize' });
    expect(parsed.ok).toBe(true);
    const staged = { name: 'builder_change_stage', args: { changeSet }, result: ok({ version: 1, files: [{ key: 'step:wf/one', action: 'M' }] }) };
    expect(calls(nextMove({ messages: conversation('Improve it', [read, stepRead, staged]), tools: tools() }))).toEqual([['builder_change_validate', {}]]);
    const validated = { name: 'builder_change_validate', result: ok({ valid: true, errors: [], warnings: [] }) };
    const end = answer(nextMove({ messages: conversation('Improve it', [read, stepRead, staged, validated]), tools: tools() }));
    expect(end.responseType).toBe('change');
    expect(end.assistantSummary).toContain('numbered checklist of 3 items');
    expect(end.assistantSummary).toContain('Validation passed.');
    expect(end.assistantSummary).toContain('Scripted demo model');
  });

  it('stages a visible change on a step written in BMAD-METHOD\'s own way (a task and numbered parts, no Instructions)', () => {
    const bmad = [
      '---\nschemaVersion: "1.1"\nnodeId: "one"\ntype: "step"\norigin: "bmad-method"\n---\n',
      '# Step 3: Wrap Up\n',
      '## YOUR TASK:\n\nClose the session warmly.\n',
      '## EXIT SEQUENCE:\n\n### 1. Thank the User\n\nSay thanks.\n\n### 2. Summarise\n\nName the highlights.\n',
    ].join('\n');
    const read = { name: 'builder_context_get', result: ok(CONTEXT) };
    const stepRead = { name: 'builder_step_read', args: { workflowId: 'wf', nodeId: 'one' }, result: ok({ markdown: bmad }) };
    const stage = nextMove({ messages: conversation('Optimize this step', [read, stepRead]), tools: tools() }) as ToolCallsReply;
    expect(stage.toolCalls[0]!.name).toBe('builder_change_stage');
    const changeSet = (stage.toolCalls[0]!.arguments as { changeSet: { operations: Array<{ payload: { stepMarkdown: string } }> } }).changeSet;
    expect(parseChangeSet(changeSet, { targetType: 'step', mode: 'optimize' }).ok).toBe(true);
    expect(changeSet.operations[0]!.payload.stepMarkdown).toContain('## EXIT SEQUENCE:\n\nWork through this checklist in order; tick each item before you move on:\n\n1. [ ] Thank the User\n2. [ ] Summarise\n');
    const staged = { name: 'builder_change_stage', args: { changeSet }, result: ok({ version: 1, files: [{ key: 'step:wf/one', action: 'M' }] }) };
    const validated = { name: 'builder_change_validate', result: ok({ valid: true, errors: [], warnings: [] }) };
    const end = answer(nextMove({ messages: conversation('Optimize this step', [read, stepRead, staged, validated]), tools: tools() }));
    expect(end.responseType).toBe('change');
    expect(end.assistantSummary).toContain('checklist of its 2 numbered parts');
    expect(end.assistantSummary).not.toContain('staged nothing');
  });

  it('reads a long target window by window before editing it', () => {
    const read = { name: 'builder_context_get', result: ok(CONTEXT) };
    const first = { name: 'builder_step_read', args: { workflowId: 'wf', nodeId: 'one' }, result: ok({ markdown: STEP.slice(0, 40), truncated: true, nextOffset: 40 }) };
    expect(calls(nextMove({ messages: conversation('Improve it', [read, first]), tools: tools() }))).toEqual([['builder_step_read', { workflowId: 'wf', nodeId: 'one', offset: 40, limit: 32000 }]]);
    const rest = { name: 'builder_step_read', args: { workflowId: 'wf', nodeId: 'one', offset: 40, limit: 32000 }, result: ok({ markdown: STEP.slice(40), truncated: true }) };
    const stage = nextMove({ messages: conversation('Improve it', [read, first, rest]), tools: tools() }) as ToolCallsReply;
    const op = (stage.toolCalls[0]!.arguments as any).changeSet.operations[0];
    expect(op.payload.stepMarkdown.startsWith(STEP.split('## Instructions')[0])).toBe(true);
  });

  it('"undo that" discards and says so', () => {
    const read = { name: 'builder_context_get', result: ok(CONTEXT) };
    expect(calls(nextMove({ messages: conversation('undo that', [read]), tools: tools() }))).toEqual([['builder_change_discard', {}]]);
    const discarded = { name: 'builder_change_discard', result: ok({ discarded: true }) };
    expect(answer(nextMove({ messages: conversation('undo that', [read, discarded]), tools: tools() }))).toMatchObject({ responseType: 'chat', assistantSummary: expect.stringContaining('discarded') });
  });

  it('ends honestly when staging is refused, when validation fails, and when the loop asks for a repair', () => {
    const read = { name: 'builder_context_get', result: ok(CONTEXT) };
    const stepRead = { name: 'builder_step_read', args: { workflowId: 'wf', nodeId: 'one' }, result: ok({ markdown: STEP }) };
    const refused = { name: 'builder_change_stage', result: { ok: false, data: null, error: { code: 'AI_CHANGESET_CONTRACT_VIOLATION', message: 'The change set has 2 problems.', details: [{ message: 'bad path' }] }, meta: {} } };
    const end = answer(nextMove({ messages: conversation('Improve it', [read, stepRead, refused]), tools: tools() }));
    expect(end).toMatchObject({ responseType: 'chat' });
    expect(end.assistantSummary).toContain('The change set has 2 problems. bad path');
    const staged = { name: 'builder_change_stage', result: ok({ version: 1, files: [{ key: 'step:wf/one', action: 'M' }] }) };
    const invalid = { name: 'builder_change_validate', result: ok({ valid: false, errors: [{ code: 'STEP_MISSING_GOAL', message: 'no goal' }], warnings: [] }) };
    expect(answer(nextMove({ messages: conversation('Improve it', [read, stepRead, staged, invalid]), tools: tools() })).assistantSummary).toContain('Validation found 1 error (STEP_MISSING_GOAL: no goal)');
    const repair = [...conversation('Improve it', [read]), { role: 'assistant', content: '{}' }, { role: 'user', content: 'REPAIR_REQUEST: the staged changes do not pass validation\n- attempt: 1 of 2' }];
    expect(answer(nextMove({ messages: repair, tools: tools() })).assistantSummary).toContain('could not make the staged change pass validation');
  });

  it('only suggests in a suggest-only turn, and explains itself without builder tools', () => {
    const read = { name: 'builder_context_get', result: ok(CONTEXT) };
    const stepRead = { name: 'builder_step_read', args: { workflowId: 'wf', nodeId: 'one' }, result: ok({ markdown: STEP }) };
    const suggestOnly = tools(ALL.filter((n) => n !== 'change_stage' && n !== 'change_discard'));
    const end = answer(nextMove({ messages: conversation('Improve it', [read, stepRead]), tools: suggestOnly }));
    expect(end.responseType).toBe('chat');
    expect(end.assistantSummary).toMatch(/^Suggestion only/u);
    expect((nextMove({ messages: conversation('hi', []), tools: [] }) as TextReply).content).toContain('none were offered');
  });
});

describe('reading the message', () => {
  it('tells undo, shorter and a plain edit apart, in English and Chinese', () => {
    for (const text of ['undo that', 'Please revert it', '撤销刚才的修改']) expect(intentOf(text)).toBe('undo');
    for (const text of ['make it shorter', 'Can you shorten this?', '精简一些']) expect(intentOf(text)).toBe('shorter');
    for (const text of ['Improve this step', 'add a section']) expect(intentOf(text)).toBe('edit');
  });

  it('writes Chinese when the prose is mostly CJK, whatever the English ids and paths', () => {
    expect(languageOf(['workflows/leave/steps/collect.md', 'hr-assistant', '询问员工请假的起止日期。确认请假类型。'])).toBe('zh');
    expect(languageOf(['Ask the requester for the legal name of the vendor.', '供应商'])).toBe('en');
    expect(languageOf(['collect'])).toBe('en');
  });
});

describe('the content language the prompt names', () => {
  const withSystem = (system: string, messages: ChatMessage[]) => [{ role: 'system', content: system }, ...messages.slice(1)];
  const ZH_PROMPT = '## [Layer-1] Global Guardrails\nLanguage:\n- Content language of this project: zh. Write every text you stage in 简体中文 (zh): …';

  it('reads the instruction from the system message, and nothing from a prompt without one', () => {
    expect(instructedLanguage([{ role: 'system', content: ZH_PROMPT }])).toBe('zh');
    expect(instructedLanguage([{ role: 'system', content: '- Content language of this project: en. Write …' }])).toBe('en');
    expect(instructedLanguage([{ role: 'system', content: '[Layer-0A] …' }])).toBeNull();
    // A user who types the sentence does not set the language: only the system message counts.
    expect(instructedLanguage([{ role: 'user', content: '- Content language of this project: zh.' }])).toBeNull();
  });

  it('stages Chinese text on an English step when the prompt says the content language is zh', () => {
    const read = { name: 'builder_context_get', result: ok(CONTEXT) };
    const stepRead = { name: 'builder_step_read', args: { workflowId: 'wf', nodeId: 'one' }, result: ok({ markdown: STEP }) };
    const stage = nextMove({ messages: withSystem(ZH_PROMPT, conversation('Improve it', [read, stepRead])), tools: tools() }) as ToolCallsReply;
    const text = JSON.stringify(stage.toolCalls[0]!.arguments);
    expect(text).toContain('按顺序完成以下清单');
    const english = nextMove({ messages: conversation('Improve it', [read, stepRead]), tools: tools() }) as ToolCallsReply;
    expect(JSON.stringify(english.toolCalls[0]!.arguments)).not.toContain('按顺序完成以下清单');
  });
});
