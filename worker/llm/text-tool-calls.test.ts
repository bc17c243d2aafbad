import { describe, expect, it } from 'vitest';
import { recoverTextToolCalls, unreadableTextToolCall, withTextToolCalls } from './text-tool-calls.ts';
import type { ChatResult } from '../../shared/llm/types.ts';

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

// Qwen on vLLM without a tool parser, Llama cut off mid-call: the call is there, but it cannot be read.
describe('tool calls written as text that cannot be read', () => {
  const STAGE = ['builder_change_stage', 'builder_step_read'];
  const cut = '{"name": "builder_change_stage", "arguments": {"changeSet": {"targetType": "step", "operations": [{"op": "update", "content": "## Goal';

  it.each([
    ['an unclosed <tool_call>', `<tool_call>\n${cut}`, ''],
    ["Llama's <|python_tag|> with parameters", '<|python_tag|>{"name": "builder_change_stage", "parameters": {"changeSet": {"targetType": "st', ''],
    ['prose, then an unclosed JSON fence', `I will stage the change now.\n\n\`\`\`json\n${cut}`, 'I will stage the change now.'],
    ['a closed tag around broken JSON', `<tool_call>\n${cut}\n</tool_call>`, ''],
    ['a bare object cut off', cut, ''],
    ["Llama 3.1's <function=…> tag with broken arguments", 'Reading.\n<function=builder_step_read>{"nodeId": "a', 'Reading.'],
  ])('%s is a call of the tool whose arguments are the broken text', (_, text, rest) => {
    const found = unreadableTextToolCall(text, STAGE);
    expect(found?.calls).toHaveLength(1);
    expect(found!.calls[0]!.name).toBe(text.includes('step_read') ? 'builder_step_read' : 'builder_change_stage');
    expect(() => JSON.parse(found!.calls[0]!.argumentsText)).toThrow();
    expect(found!.calls[0]!.argumentsText.length).toBeGreaterThan(0);
    expect(found!.rest).toBe(rest);
  });

  it.each([
    ['a call of a tool not offered', '<tool_call>\n{"name": "shell_exec", "arguments": {"cmd": "rm'],
    ['a final answer cut off', '{"responseType": "chat", "assistantSummary": "The step'],
    ['JSON that is no call', '```json\n{"nodeId": "a", "goal": "x'],
    ['prose that mentions a tool', 'I could call builder_change_stage with {"changeSet": …} if you want.'],
    ['prose, then a bare object', 'Here it is: {"name": "builder_change_stage", "arguments": {'],
    ['a call that parses', '<tool_call>{"name":"builder_step_read","arguments":{}}</tool_call>'],
  ])('%s is not one', (_, text) => {
    expect(unreadableTextToolCall(text, STAGE)).toBeNull();
  });

  it('is read (and refused as not JSON) whatever ended the answer, while readable calls cut by the length limit are not', () => {
    const result = (content: string): ChatResult =>
      ({ content, toolCalls: [], finishReason: 'length', refusal: null, usage: null, assistantMessage: { role: 'assistant', content } }) as unknown as ChatResult;
    const broken = withTextToolCalls(result(`<tool_call>\n${cut}`), STAGE);
    expect(broken.toolCalls).toMatchObject([{ name: 'builder_change_stage', finishedCleanly: true }]);
    expect(broken.assistantMessage.content).toBeNull();
    const readable = withTextToolCalls(result('<tool_call>{"name":"builder_step_read","arguments":{}}</tool_call>'), STAGE);
    expect(readable.toolCalls).toMatchObject([{ name: 'builder_step_read', finishedCleanly: false }]);
  });
});
