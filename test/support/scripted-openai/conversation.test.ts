import { describe, expect, it } from 'vitest';
import { alternationProblem, toolShapeProblem } from './conversation.ts';
import type { ChatMessage } from './types.ts';

const call = (id: string) => ({ id, type: 'function', function: { name: 'builder_step_read', arguments: '{}' } });

describe('the conversation checks real servers make', () => {
  it('accepts tool results that answer the calls before them, in any order', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'u' },
      { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
      { role: 'tool', tool_call_id: 'b', content: '{}' },
      { role: 'tool', tool_call_id: 'a', content: '{}' },
      { role: 'assistant', content: 'done' },
      { role: 'user', content: 'REPAIR_REQUEST' },
    ];
    expect(toolShapeProblem(messages)).toBeNull();
  });

  it("refuses, in OpenAI's words, a tool message that answers no call and calls left unanswered", () => {
    expect(toolShapeProblem([{ role: 'user', content: 'u' }, { role: 'assistant', content: 'answer' }, { role: 'tool', tool_call_id: 'final-1', content: '{}' }])).toContain(
      "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'",
    );
    expect(toolShapeProblem([{ role: 'assistant', content: null, tool_calls: [call('a'), call('b')] }, { role: 'tool', tool_call_id: 'a', content: '{}' }, { role: 'user', content: 'u' }])).toContain(
      'did not have response messages: b',
    );
  });

  it('finds two user messages in a row for a template that needs alternating roles', () => {
    expect(alternationProblem([{ role: 'system', content: 's' }, { role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'user', content: 'c' }])).toBeNull();
    expect(alternationProblem([{ role: 'system', content: 's' }, { role: 'user', content: 'a' }, { role: 'user', content: 'c' }])).toMatch(/must alternate/);
  });
});
