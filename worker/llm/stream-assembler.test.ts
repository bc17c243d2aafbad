import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { CallbackError, ResponseTooLargeError, StreamAssembler } from './stream-assembler.ts';

function chunk(delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}): ChatCompletionChunk {
  return { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'deepseek-reasoner', choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }], ...extra } as ChatCompletionChunk;
}

describe('StreamAssembler', () => {
  it('merges tool-call deltas by index, whatever the interleaving', () => {
    const a = new StreamAssembler();
    a.push(chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'b', arguments: '' } }] }));
    a.push(chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'a', arguments: '{"x"' } }] }));
    a.push(chunk({ tool_calls: [{ index: 1, function: { arguments: '{}' } }] }));
    a.push(chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }));
    a.push(chunk({}, 'tool_calls'));
    expect(a.result(true, 1).toolCalls).toEqual([
      { index: 0, id: 'call_a', name: 'a', argumentsText: '{"x":1}', finishedCleanly: true },
      { index: 1, id: 'call_b', name: 'b', argumentsText: '{}', finishedCleanly: true },
    ]);
  });

  it('copes with providers that omit the index or the id', () => {
    const a = new StreamAssembler();
    a.push(chunk({ tool_calls: [{ id: 'x1', function: { name: 'first', arguments: '{"a":' } }] }));
    a.push(chunk({ tool_calls: [{ function: { arguments: '1}' } }] }));
    a.push(chunk({ tool_calls: [{ id: 'x2', function: { name: 'second', arguments: '{}' } }] }));
    a.push(chunk({ tool_calls: [{ index: 2, function: { name: 'third', arguments: '{}' } }] }));
    a.push(chunk({}, 'tool_calls'));
    const calls = a.result(true, 1).toolCalls;
    expect(calls.map((c) => [c.id, c.name, c.argumentsText])).toEqual([
      ['x1', 'first', '{"a":1}'],
      ['x2', 'second', '{}'],
      ['call_missing_id_2', 'third', '{}'],
    ]);
  });

  it('keeps reasoning written into the content (<think>…</think>, or ending at an orphan </think>) out of the text and the message, whatever the chunks', () => {
    const answer = '{"responseType":"chat","assistantSummary":"Fine."}';
    for (const content of [`<think>The user wants a check.</think>\n${answer}`, `The user wants a check.\n</think>\n\n${answer}`]) {
      for (const size of [1, 3, 7]) {
        const a = new StreamAssembler();
        for (let at = 0; at < content.length; at += size) a.push(chunk({ content: content.slice(at, at + size) }));
        a.push(chunk({}, 'stop'));
        const result = a.result(true, 1);
        expect(result.content, `${size}: ${content}`).toBe(answer);
        expect(result.assistantMessage).toEqual({ role: 'assistant', content: answer });
        expect(result.reasoningContent).toContain('The user wants a check.');
      }
    }
  });

  it('marks every call unfinished when the turn ended by length or the stream did not complete', () => {
    const a = new StreamAssembler();
    a.push(chunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'n', arguments: '{"a' } }] }, 'length'));
    expect(a.result(true, 1).toolCalls[0]?.finishedCleanly).toBe(false);
    const b = new StreamAssembler();
    b.push(chunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'n', arguments: '{}' } }] }));
    expect(b.result(false, 1).toolCalls[0]?.finishedCleanly).toBe(false);
  });

  it('keeps reasoning and other provider extras, and puts them in the assistant message', () => {
    const reasoning: string[] = [];
    const a = new StreamAssembler({ onReasoningDelta: (t) => reasoning.push(t) });
    a.push(chunk({ role: 'assistant', content: null, reasoning_content: 'Think' }));
    a.push(chunk({ reasoning_content: 'ing.' }));
    a.push(chunk({ content: 'Hi', vendor_flag: { cached: true } }));
    a.push(chunk({}, 'stop'));
    a.push({ ...chunk({}), choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } } as ChatCompletionChunk);
    const result = a.result(true, 1);
    expect(reasoning).toEqual(['Think', 'ing.']);
    expect(result).toMatchObject({
      content: 'Hi',
      reasoningContent: 'Thinking.',
      providerExtras: { reasoning_content: 'Thinking.', vendor_flag: { cached: true } },
      usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7 },
      model: 'deepseek-reasoner',
      finishReason: 'stop',
    });
    expect(result.assistantMessage).toEqual({ role: 'assistant', content: 'Hi', reasoning_content: 'Thinking.', vendor_flag: { cached: true } });
  });

  it("merges OpenRouter's streamed reasoning_details into whole blocks and sends them back with the message", () => {
    const a = new StreamAssembler();
    a.push(chunk({ role: 'assistant', reasoning: 'Read', reasoning_details: [{ type: 'reasoning.text', text: 'Read', format: 'anthropic-claude-v1', index: 0 }] }));
    a.push(chunk({ reasoning: ' the step.', reasoning_details: [{ type: 'reasoning.text', text: ' the step.', format: 'anthropic-claude-v1', index: 0 }] }));
    a.push(chunk({ reasoning_details: [{ type: 'reasoning.text', signature: 'sig-1', format: 'anthropic-claude-v1', index: 0 }] }));
    a.push(chunk({ reasoning_details: [{ type: 'reasoning.encrypted', data: 'opaque', format: 'anthropic-claude-v1', index: 1 }] }));
    a.push(chunk({ tool_calls: [{ index: 0, id: 'call_1', function: { name: 'builder_step_read', arguments: '{}' } }] }, 'tool_calls'));
    const result = a.result(true, 1);
    expect(result.reasoningContent).toBe('Read the step.');
    expect(result.assistantMessage['reasoning_details']).toEqual([
      { type: 'reasoning.text', text: 'Read the step.', signature: 'sig-1', format: 'anthropic-claude-v1', index: 0 },
      { type: 'reasoning.encrypted', data: 'opaque', format: 'anthropic-claude-v1', index: 1 },
    ]);
  });

  it('counts a kept list extra toward the answer cap, so an endless reasoning_details stream is cut off', () => {
    const a = new StreamAssembler({}, 1_000);
    const piece = { type: 'reasoning.text', text: 'x'.repeat(100), index: 0 };
    expect(() => {
      for (let n = 0; n < 20; n++) a.push(chunk({ reasoning_details: [piece] }));
    }).toThrow(ResponseTooLargeError);
  });

  it('reads content sent as a list of parts (Mistral reasoning models): text as text, thinking as reasoning', () => {
    const text: string[] = [];
    const reasoning: string[] = [];
    const a = new StreamAssembler({ onTextDelta: (t) => text.push(t), onReasoningDelta: (t) => reasoning.push(t) });
    a.push(chunk({ role: 'assistant', content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'The step needs ' }] }] }));
    a.push(chunk({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'a checklist.' }] }] }));
    a.push(chunk({ content: [{ type: 'text', text: '{"responseType":' }] }));
    a.push(chunk({ content: [{ type: 'text', text: ' "chat"}' }, 'x'] }));
    a.push(chunk({}, 'stop'));
    const result = a.result(true, 1);
    expect(result.content).toBe('{"responseType": "chat"}x');
    expect(result.reasoningContent).toBe('The step needs a checklist.');
    expect(text.join('')).toBe(result.content);
    expect(reasoning.join('')).toBe('The step needs a checklist.');
    // What goes back to the model is its text, as a string.
    expect(result.assistantMessage).toEqual({ role: 'assistant', content: '{"responseType": "chat"}x' });
  });

  it('reads tool-call arguments a server sent as an object', () => {
    const a = new StreamAssembler();
    a.push(chunk({ tool_calls: [{ index: 0, id: 'call_o', type: 'function', function: { name: 'builder_step_read', arguments: { nodeId: 'one' } } }] }));
    a.push(chunk({}, 'tool_calls'));
    expect(a.result(true, 1).toolCalls.map((c) => [c.name, c.argumentsText])).toEqual([['builder_step_read', '{"nodeId":"one"}']]);
  });

  it('wraps a throwing callback so the adapter can rethrow it as a bug', () => {
    const a = new StreamAssembler({
      onTextDelta: () => {
        throw new Error('boom');
      },
    });
    expect(() => a.push(chunk({ content: 'x' }))).toThrow(CallbackError);
  });
});

describe('StreamAssembler: ids real servers get wrong', () => {
  it('gives repeated and missing ids their own value, so each call keeps its arguments', () => {
    const a = new StreamAssembler();
    a.push(chunk({ tool_calls: [{ index: 0, id: 'call_1', function: { name: 'a', arguments: '{"n":1}' } }] }));
    a.push(chunk({ tool_calls: [{ index: 1, id: 'call_1', function: { name: 'b', arguments: '{"n":2}' } }] }));
    a.push(chunk({ tool_calls: [{ index: 2, function: { name: 'c', arguments: '{"n":3}' } }] }));
    a.push(chunk({ tool_calls: [{ index: 3, function: { name: 'd', arguments: '{"n":4}' } }] }));
    a.push(chunk({}, 'tool_calls'));
    const result = a.result(true, 1);
    const ids = result.toolCalls.map((c) => c.id);
    expect(new Set(ids).size).toBe(4);
    expect(result.toolCalls.map((c) => [c.name, c.argumentsText])).toEqual([
      ['a', '{"n":1}'],
      ['b', '{"n":2}'],
      ['c', '{"n":3}'],
      ['d', '{"n":4}'],
    ]);
    expect(result.assistantMessage.tool_calls?.map((c) => c.id)).toEqual(ids);
  });

  it('splits calls that a server streams under one index with different ids', () => {
    const a = new StreamAssembler();
    a.push(chunk({ tool_calls: [{ index: 0, id: 'call_x', function: { name: 'a', arguments: '{"n":1}' } }] }));
    a.push(chunk({ tool_calls: [{ index: 0, id: 'call_y', function: { name: 'b', arguments: '{"n":2}' } }] }));
    a.push(chunk({}, 'stop'));
    expect(a.result(true, 1).toolCalls.map((c) => [c.id, c.name, c.argumentsText])).toEqual([
      ['call_x', 'a', '{"n":1}'],
      ['call_y', 'b', '{"n":2}'],
    ]);
  });

  it('adds up a function name streamed in pieces (Gemini), and takes a repeated whole name once', () => {
    const split = new StreamAssembler();
    split.push(chunk({ tool_calls: [{ index: 0, id: 'call_g', type: 'function', function: { name: 'builder_', arguments: '' } }] }));
    split.push(chunk({ tool_calls: [{ index: 0, function: { name: 'step_read' } }] }));
    split.push(chunk({ tool_calls: [{ index: 0, function: { arguments: '{}' } }] }, 'tool_calls'));
    expect(split.result(true, 1).toolCalls.map((c) => [c.name, c.argumentsText])).toEqual([['builder_step_read', '{}']]);

    // LM Studio and llama.cpp builds that send the whole name (or the name so far) with every delta.
    const repeated = new StreamAssembler();
    repeated.push(chunk({ tool_calls: [{ index: 0, id: 'call_r', function: { name: 'builder_step_read', arguments: '{"a"' } }] }));
    repeated.push(chunk({ tool_calls: [{ index: 0, id: 'call_r', function: { name: 'builder_step_read', arguments: ':1}' } }] }));
    repeated.push(chunk({ tool_calls: [{ index: 1, id: 'call_s', function: { name: 'builder_', arguments: '' } }] }));
    repeated.push(chunk({ tool_calls: [{ index: 1, id: 'call_s', function: { name: 'builder_context_get', arguments: '{}' } }] }, 'tool_calls'));
    expect(repeated.result(true, 1).toolCalls.map((c) => [c.name, c.argumentsText])).toEqual([
      ['builder_step_read', '{"a":1}'],
      ['builder_context_get', '{}'],
    ]);
  });
});
