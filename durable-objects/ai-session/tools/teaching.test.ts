import { describe, expect, it } from 'vitest';
import { toolError, toolOk } from '../../../shared/ai/tool-envelope.ts';
import type { SessionMeta } from '../../../shared/ai/session.ts';
import type { ChatMessage } from '../../../shared/llm/types.ts';
import { lastStageFailure } from '../loop/honest-ending.ts';
import { exampleCall, failedBefore, teach } from './teaching.ts';
import { RefsFindArgs, StepReadArgs } from './read-tools.ts';

const session = { sessionId: 'as_1', projectId: 'p', targetType: 'step', targetId: 'check', workflowId: 'wf', mode: 'optimize' } as SessionMeta;

function call(id: string, name: string, args: string): ChatMessage {
  return { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: args } }] } as ChatMessage;
}
function result(id: string, envelope: unknown): ChatMessage {
  return { role: 'tool', tool_call_id: id, content: JSON.stringify(envelope) } as ChatMessage;
}

describe('teaching tool errors', () => {
  it('gives an example call for the session target', () => {
    expect(exampleCall('builder.step.read', session)).toEqual({ tool: 'builder_step_read', arguments: { workflowId: 'wf', nodeId: 'check' } });
    expect(exampleCall('builder.change.apply', session).tool).toBe('builder_change_validate');
  });

  it('gives example calls whose arguments fit the tool, for a step target and for another', () => {
    const agentSession = { ...session, targetType: 'agent', targetId: 'auditor', workflowId: null } as SessionMeta;
    for (const s of [session, agentSession]) {
      for (const [name, schema] of [['builder.refs.find', RefsFindArgs], ['builder.step.read', StepReadArgs]] as const) {
        expect(schema.safeParse(exampleCall(name, s).arguments).success, `${name} for a ${s.targetType}`).toBe(true);
      }
    }
  });

  it('adds the example to errors only, and a plainer first hint to a repeat', () => {
    const ok = toolOk({}, { revision: null });
    expect(teach(ok, 'builder.step.read', session, false)).toBe(ok);
    const error = toolError('STEP_NOT_FOUND', { hints: ['Known steps: a.'] });
    const once = teach(error, 'builder.step.read', session, false);
    expect(once.ok || once.error.hints).toEqual(['Known steps: a.', 'Example of a valid call: builder_step_read with arguments {"workflowId":"wf","nodeId":"check"}.']);
    const twice = teach(error, 'builder.step.read', session, true);
    expect(twice.ok || twice.error.hints?.[0]).toMatch(/^You already sent exactly this call and it failed with STEP_NOT_FOUND/u);
  });

  it('recognises the same failing call, whatever the key order, but not a different one or a success', () => {
    const failed = toolError('STEP_NOT_FOUND');
    const messages = [call('c1', 'builder_step_read', '{"workflowId":"wf","nodeId":"x"}'), result('c1', failed), call('c2', 'builder_step_read', '{"nodeId":"y"}'), result('c2', toolOk({}, { revision: null }))];
    expect(failedBefore(messages, 'builder.step.read', { nodeId: 'x', workflowId: 'wf' }, 'c9', 'STEP_NOT_FOUND')).toBe(true);
    expect(failedBefore(messages, 'builder.step.read', { nodeId: 'y' }, 'c9', 'STEP_NOT_FOUND')).toBe(false);
    expect(failedBefore(messages, 'builder.step.read', { nodeId: 'x', workflowId: 'wf' }, 'c9', 'AI_TOOL_EXECUTION_ERROR')).toBe(false);
  });

  it('finds the latest stage failure, forgotten once a later stage succeeds', () => {
    const failed = toolError('AI_APPLY_UNSUPPORTED');
    const first = [call('s1', 'builder_change_stage', '{}'), result('s1', failed)];
    expect(lastStageFailure(first)?.code).toBe('AI_APPLY_UNSUPPORTED');
    expect(lastStageFailure([...first, call('s2', 'builder_change_stage', '{}'), result('s2', toolOk({}, { revision: null }))])).toBe(null);
  });
});
