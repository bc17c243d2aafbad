// The one chunk a whole JSON completion adds up to (whole-completion.ts chunkOfCompletion), read by the assembler.
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { StreamAssembler } from './stream-assembler.ts';
import { chunkOfCompletion } from './whole-completion.ts';

function assembled(message: Record<string, unknown>, finish: string | null = null) {
  const completion = { id: 'w', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message, finish_reason: finish, logprobs: null }] } as unknown as ChatCompletion;
  const assembler = new StreamAssembler();
  assembler.push(chunkOfCompletion(completion));
  return assembler.result(true, 1);
}

describe('chunkOfCompletion', () => {
  it('keeps content given as a list of parts, and leaves out annotations and audio', () => {
    const result = assembled({ role: 'assistant', content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'Plan.' }] }, { type: 'text', text: 'Done.' }], annotations: [], audio: null }, 'stop');
    expect(result).toMatchObject({ content: 'Done.', reasoningContent: 'Plan.', finishReason: 'stop' });
    expect(result.assistantMessage).toEqual({ role: 'assistant', content: 'Done.' });
  });

  it('gives a choice without a finish reason the one its message implies', () => {
    expect(assembled({ role: 'assistant', content: 'Hi.' }).finishReason).toBe('stop');
    const calls = assembled({ role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'builder_step_read', arguments: '{}' } }] });
    expect(calls.finishReason).toBe('tool_calls');
    expect(calls.toolCalls.map((c) => [c.id, c.name, c.argumentsText, c.finishedCleanly])).toEqual([['call_1', 'builder_step_read', '{}', true]]);
  });
});
