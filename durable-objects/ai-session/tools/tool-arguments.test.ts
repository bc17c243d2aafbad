import { describe, expect, it } from 'vitest';
import { RefsFindArgs, StepReadArgs } from './read-tools.ts';
import { readToolArguments } from './tool-arguments.ts';

describe('readToolArguments', () => {
  it('reads what real models send for a step read: blank optionals, numbers as text, the only workflow as null', () => {
    const read = readToolArguments('builder.step.read', StepReadArgs, { workflowId: null, nodeId: 'check', limit: '20', offset: 'null', projectId: '' }, 'wf');
    expect(read).toEqual({
      ok: true,
      data: { workflowId: 'wf', nodeId: 'check', limit: 20 },
      notes: [
        'read "workflowId": null as "wf", the project\'s only workflow',
        'read "offset": "null" as not given',
        'read "projectId": "" as not given',
        'read "limit": "20" as the number 20',
      ],
    });
    expect(readToolArguments('builder.step.read', StepReadArgs, { nodeId: 'check' }, 'wf')).toMatchObject({ ok: true, data: { workflowId: 'wf' } });
  });

  it('never guesses a workflow when the project has several', () => {
    const read = readToolArguments('builder.step.read', StepReadArgs, { workflowId: null, nodeId: 'check' });
    expect(read.ok).toBe(false);
    expect(!read.ok && read.error.error?.details).toEqual([{ path: 'workflowId', message: expect.stringContaining('"workflowId" is missing') }]);
  });

  it('reads a locator written as its object key', () => {
    expect(readToolArguments('builder.refs.find', RefsFindArgs, { locator: 'step:wf/check' })).toMatchObject({ ok: true, data: { locator: { type: 'step', id: 'check', workflowId: 'wf' } } });
  });

  it('refuses arguments that still do not fit with AI_TOOL_ARGUMENTS_INVALID, naming each field, what was sent and what it wants', () => {
    const read = readToolArguments('builder.step.read', StepReadArgs, { workflowId: 'wf', nodeId: 'check', limit: 'all', node: 'x' });
    expect(read.ok).toBe(false);
    if (read.ok || read.error.ok) return;
    expect(read.error.error.code).toBe('AI_TOOL_ARGUMENTS_INVALID');
    expect(read.error.error.message).toMatch(/^builder\.step\.read did not run: its arguments do not fit its JSON Schema\./u);
    expect(read.error.error.message).toContain('"limit" is "all": Invalid input: expected number, received string. The field: Most characters to return');
    expect(read.error.error.message).toContain('Unrecognized key: "node"');
    expect(read.error.error.details?.map((d) => d.path)).toEqual(['limit', '']);
  });
});
