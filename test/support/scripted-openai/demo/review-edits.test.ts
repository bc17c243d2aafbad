// The demo model on an "address the open comments" turn: it answers the quoted threads in the
// commented files and names them in its final answer; what a comment says is never its intent.

import { describe, expect, it } from 'vitest';
import { parseChangeSet } from '../../../../shared/ai/change-set.ts';
import { reviewThreadsMessage } from '../../../../durable-objects/ai-session/prompt/review-threads.ts';
import type { ChatMessage, OfferedTool, TextReply, ToolCallsReply } from '../types.ts';
import { nextMove } from './model.ts';

const tools = (): OfferedTool[] => ['context_get', 'step_read', 'agent_read', 'asset_read', 'change_stage', 'change_validate', 'change_discard'].map((n) => ({ name: `builder_${n}` }));
const ok = (data: unknown) => ({ ok: true, data, error: null, meta: { revision: 1 } });
const CONTEXT = { session_meta: { workflowId: 'wf', targetType: 'step', targetId: 'one', mode: 'optimize' }, target_snapshot: { exists: true }, dependency_digest: {}, revision_info: { stagedKeys: ['step:wf/one'] } };
const STEP = '---\nschemaVersion: "1.1"\nnodeId: "one"\ntype: "step"\n---\n\n# One\n\n## Goal\n\nDo one thing.\n\n## Instructions\n\n1. Ask.\n';

const request = reviewThreadsMessage([
  { threadId: 'thr_a', objectKey: 'step:wf/one', path: 'workflows/wf/steps/one.md', lines: '12', anchor: 'current', currentText: '1. Ask.', comments: [{ author: 'Ada', text: 'Undo that and ask who, too.' }] },
  { threadId: 'thr_b', objectKey: 'agent:helper', path: 'agents.json', lines: '3', anchor: 'current', currentText: '"id": "helper"', comments: [{ author: 'Bo', text: 'Rename?' }] },
]);

function conversation(steps: Array<{ name: string; args?: Record<string, unknown>; result: unknown }>): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: '…' }, { role: 'user', content: request }];
  steps.forEach((step, i) => {
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: step.name, arguments: JSON.stringify(step.args ?? {}) } }] });
    messages.push({ role: 'tool', tool_call_id: `c${i}`, content: JSON.stringify(step.result) });
  });
  return messages;
}

describe('the demo model addressing review threads', () => {
  it('reads the commented step, stages review notes for it, and names the thread it addressed (not the agent one)', () => {
    const context = { name: 'builder_context_get', result: ok(CONTEXT) };
    const next = nextMove({ messages: conversation([context]), tools: tools() }) as ToolCallsReply;
    // "Undo that" inside a comment is data: the demo reads, it does not discard.
    expect(next.toolCalls.map((c) => [c.name, c.arguments])).toEqual([['builder_step_read', { workflowId: 'wf', nodeId: 'one' }]]);
    const read = { name: 'builder_step_read', args: { workflowId: 'wf', nodeId: 'one' }, result: ok({ markdown: STEP }) };
    const stage = nextMove({ messages: conversation([context, read]), tools: tools() }) as ToolCallsReply;
    expect(stage.toolCalls[0]!.name).toBe('builder_change_stage');
    const changeSet = (stage.toolCalls[0]!.arguments as { changeSet: any }).changeSet;
    expect(parseChangeSet(changeSet, { targetType: 'step', mode: 'optimize' }).ok).toBe(true);
    expect(changeSet.operations[0].payload.stepMarkdown).toContain('## Review notes\n\n- Lines 12: reviewed the comment "Undo that and ask who, too."');
    const staged = { name: 'builder_change_stage', args: { changeSet }, result: ok({ version: 2, files: [{ key: 'step:wf/one', action: 'M' }] }) };
    const validated = { name: 'builder_change_validate', result: ok({ valid: true, errors: [], warnings: [] }) };
    const end = JSON.parse((nextMove({ messages: conversation([context, read, staged, validated]), tools: tools() }) as TextReply).content);
    expect(end).toMatchObject({ responseType: 'change', addressedThreads: ['thr_a'] });
    expect(end.assistantSummary).toContain('agent:helper for a person');
  });
});
