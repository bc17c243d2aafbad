import { describe, expect, it } from 'vitest';
import { recoverTextToolCalls } from './text-tool-calls.ts';

const OFFERED = ['builder_step_read', 'builder_context_get'];

describe('tool calls written as text', () => {
  it('reads Hermes/Qwen <tool_call> blocks, several of them, and keeps the text around them', () => {
    const text =
      'Reading first.\n<tool_call>\n{"name": "builder_step_read", "arguments": {"workflowId": "w", "nodeId": "n"}}\n</tool_call>\n<tool_call>{"name":"builder_context_get","arguments":{}}</tool_call>';
    expect(recoverTextToolCalls(text, OFFERED)).toEqual({
      calls: [
        { name: 'builder_step_read', argumentsText: '{"workflowId":"w","nodeId":"n"}' },
        { name: 'builder_context_get', argumentsText: '{}' },
      ],
      rest: 'Reading first.',
    });
  });

  it('reads fenced JSON, a bare object with Llama-style `parameters`, an unclosed tag, and dotted names', () => {
    expect(recoverTextToolCalls('```json\n{"name":"builder.step.read","arguments":{"nodeId":"n"}}\n```', OFFERED)?.calls).toEqual([
      { name: 'builder_step_read', argumentsText: '{"nodeId":"n"}' },
    ]);
    expect(recoverTextToolCalls('{"name": "builder_context_get", "parameters": {}}', OFFERED)?.calls).toEqual([{ name: 'builder_context_get', argumentsText: '{}' }]);
    expect(recoverTextToolCalls('<tool_call>{"name":"builder_context_get","arguments":"{}"}', OFFERED)?.calls).toEqual([
      { name: 'builder_context_get', argumentsText: '{}' },
    ]);
  });

  it("reads Mistral's [TOOL_CALLS] list, Llama's <|python_tag|> object and Llama 3.1's <function=name> tags", () => {
    expect(recoverTextToolCalls('[TOOL_CALLS] [{"name": "builder_step_read", "arguments": {"nodeId": "a"}}, {"name": "builder_context_get", "arguments": {}}]', OFFERED)).toEqual({
      calls: [
        { name: 'builder_step_read', argumentsText: '{"nodeId":"a"}' },
        { name: 'builder_context_get', argumentsText: '{}' },
      ],
      rest: '',
    });
    expect(recoverTextToolCalls('<|python_tag|>{"name": "builder_step_read", "parameters": {"nodeId": "b"}}', OFFERED)?.calls).toEqual([
      { name: 'builder_step_read', argumentsText: '{"nodeId":"b"}' },
    ]);
    expect(recoverTextToolCalls('Reading both.\n<function=builder_step_read>{"nodeId": "c"}</function><function=builder.context.get>{}</function>', OFFERED)).toEqual({
      calls: [
        { name: 'builder_step_read', argumentsText: '{"nodeId":"c"}' },
        { name: 'builder_context_get', argumentsText: '{}' },
      ],
      rest: 'Reading both.',
    });
    // Not offered, or not JSON inside the tag: left as text.
    expect(recoverTextToolCalls('<function=shell_exec>{"cmd": "ls"}</function>', OFFERED)).toBeNull();
    expect(recoverTextToolCalls('<function=builder_step_read>nodeId c</function>', OFFERED)).toBeNull();
    expect(recoverTextToolCalls('[TOOL_CALLS] not json', OFFERED)).toBeNull();
  });

  it('reads the calls after reasoning left in the content, never one the reasoning only mentions', () => {
    const thinking = '<think>I could call <tool_call>{"name":"builder_context_get","arguments":{}}</tool_call> but the step is better.</think>\n';
    expect(recoverTextToolCalls(`${thinking}<tool_call>{"name":"builder_step_read","arguments":{"nodeId":"a"}}</tool_call>`, OFFERED)).toEqual({
      calls: [{ name: 'builder_step_read', argumentsText: '{"nodeId":"a"}' }],
      rest: '',
    });
    // A bare object after the reasoning (Llama-style), and reasoning that only thinks about a call.
    expect(recoverTextToolCalls(`${thinking}{"name":"builder_step_read","parameters":{"nodeId":"b"}}`, OFFERED)?.calls).toEqual([
      { name: 'builder_step_read', argumentsText: '{"nodeId":"b"}' },
    ]);
    expect(recoverTextToolCalls(`${thinking}The step reads well as it is.`, OFFERED)).toBeNull();
  });

  it('leaves text alone when no tools were offered, a name was not offered, or the JSON is an answer', () => {
    const call = '<tool_call>{"name":"builder_step_read","arguments":{}}</tool_call>';
    expect(recoverTextToolCalls(call, [])).toBeNull();
    expect(recoverTextToolCalls('<tool_call>{"name":"shell_exec","arguments":{"cmd":"rm"}}</tool_call>', OFFERED)).toBeNull();
    expect(recoverTextToolCalls('{"responseType":"chat","assistantSummary":"Done."}', OFFERED)).toBeNull();
    expect(recoverTextToolCalls('```json\n{"responseType":"change","assistantSummary":"x"}\n```', OFFERED)).toBeNull();
    expect(recoverTextToolCalls('Use <tool_call> tags to call tools.', OFFERED)).toBeNull();
  });
});
