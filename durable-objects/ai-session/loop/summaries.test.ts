// Tool-call summaries go out twice: as the English line and as a code with values (shared/ai/tool-words.ts),
// the same facts either way, so a viewer reading Chinese gets them without the English words.
import { describe, expect, it } from 'vitest';
import { toolError, toolOk } from '../../../shared/ai/tool-envelope.ts';
import { ToolWords, TOOL_REQUEST_CODES, TOOL_RESULT_CODES } from '../../../shared/ai/tool-words.ts';
import { argumentsSummary, argumentsWords, resultSummary, resultWords } from './summaries.ts';

describe('tool-call words', () => {
  it('say what a call asks for with the ids its summary names', () => {
    expect(argumentsSummary('builder.step.read', { workflowId: 'wf', nodeId: 'n1', offset: 40 })).toBe('step wf/n1 from 40');
    expect(argumentsWords('builder.step.read', { workflowId: 'wf', nodeId: 'n1', offset: 40 }, false)).toEqual({
      code: 'stepFrom',
      params: { workflowId: 'wf', nodeId: 'n1', offset: '40' },
    });
    const stage = { changeSet: { operations: [{ op: 'update', targetType: 'step', target: { nodeId: 'n1' } }] } };
    expect(argumentsWords('builder.change.stage', stage, false)).toEqual({ code: 'operations', params: { count: 1, list: 'update step n1' } });
    expect(argumentsWords('builder.change.validate', {}, false)?.code).toBe('validateLatest');
    expect(argumentsWords('builder.step.read', {}, true)?.code).toBe('notRun');
    // A tool whose summary is its raw arguments has no words: the app keeps the summary.
    expect(argumentsWords('builder.something.new', { a: 1 }, false)).toBeUndefined();
  });

  it('say what it answered, a failure by its error code only', () => {
    const staged = toolOk({ version: 3, files: [{ action: 'M', key: 'step:wf/n1' }] }, { revision: 1 });
    expect(resultSummary('builder.change.stage', staged)).toBe('staged version 3: M step:wf/n1');
    expect(resultWords('builder.change.stage', staged)).toEqual({ code: 'staged', params: { version: '3', count: 1, files: 'M step:wf/n1' } });
    const invalid = toolOk({ valid: false, errors: [{}, {}], warnings: [{}] }, { revision: 1 });
    expect(resultWords('builder.change.validate', invalid)).toEqual({ code: 'invalid', params: { errors: 2, warnings: 1 } });
    const failed = toolError('NOT_FOUND', { message: 'No step n9 in wf (internal detail)' });
    expect(resultWords('builder.step.read', failed)).toEqual({ code: 'failed', params: { code: 'NOT_FOUND' } });
    expect(resultWords('builder.step.read', toolOk({ text: 'abc' }, { revision: 1, staged: true }))).toEqual({
      code: 'charactersStaged',
      params: { count: JSON.stringify({ text: 'abc' }).length },
    });
  });

  it('use only the codes the contract lists, in the shape the event schema accepts', () => {
    const requests = ['builder.context.get', 'builder.workflow.read', 'builder.agent.read', 'builder.asset.read', 'builder.refs.find', 'builder.change.discard'];
    for (const name of requests) {
      const words = argumentsWords(name, { workflowId: 'wf', agentId: 'a', path: 'assets/x.md', locator: { type: 'step', id: 'n1' } }, false)!;
      expect(TOOL_REQUEST_CODES).toContain(words.code);
      expect(ToolWords.safeParse(words).success).toBe(true);
    }
    for (const name of ['builder.change.discard', 'builder.refs.find']) {
      const words = resultWords(name, toolOk({ inbound: [1], outbound: [] }, { revision: null }));
      expect(TOOL_RESULT_CODES).toContain(words.code);
    }
  });
});
