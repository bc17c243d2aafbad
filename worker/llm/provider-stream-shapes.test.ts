// How real servers shape a stream, read through the provider adapter and the real openai SDK against
// the scripted server: names streamed in pieces, streams that end without a finish reason.

import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedOpenAI, type ScriptedOpenAI } from '../../test/support/scripted-openai/index.ts';
import { createChatProvider } from './provider.ts';
import type { ChatMessage, ChatTool } from '../../shared/llm/types.ts';
import type { ChatOutcome } from './chat-outcome.ts';

const server: ScriptedOpenAI = await startScriptedOpenAI();
afterAll(() => server.close());
beforeEach(() => server.reset());

const messages: ChatMessage[] = [{ role: 'user', content: 'Improve step one' }];
const tools: ChatTool[] = [
  { type: 'function', function: { name: 'builder_step_read', parameters: { type: 'object', properties: { nodeId: { type: 'string' } } } } },
];
const provider = () => createChatProvider({ baseUrl: server.url, model: 'm', apiKey: 'sk-test', timeoutSeconds: 10 }, { sleep: async () => {} });

function completed(outcome: ChatOutcome) {
  if (outcome.type !== 'completed') throw new Error(`expected completed, got ${JSON.stringify(outcome)}`);
  return outcome.result;
}

describe('function names', () => {
  it('adds up a name streamed in pieces, as Gemini sends it', async () => {
    server.setScenario({ toolCalls: [{ name: 'builder_step_read', arguments: { nodeId: 'one' } }], nameFragmentChars: 8 });
    const result = completed(await provider().streamChat({ messages, tools }));
    expect(result.toolCalls).toMatchObject([{ name: 'builder_step_read', argumentsText: '{"nodeId":"one"}', finishedCleanly: true }]);
    expect(result.assistantMessage.tool_calls?.[0]?.function.name).toBe('builder_step_read');
  });
});

describe('the end of a stream', () => {
  it('takes a stream that closed with [DONE] but never gave a finish reason as finished: tool_calls when it made calls', async () => {
    server.setScenario({ toolCalls: [{ name: 'builder_step_read', arguments: { nodeId: 'one' } }], finishReasonOnWire: 'null' });
    const result = completed(await provider().streamChat({ messages, tools }));
    expect(result.finishReason).toBe('tool_calls');
    expect(result.toolCalls).toMatchObject([{ name: 'builder_step_read', argumentsText: '{"nodeId":"one"}', finishedCleanly: true }]);
  });

  it('takes finish_reason "" before [DONE] as a finished answer: stop for text', async () => {
    server.setScenario({ content: 'All done.', finishReasonOnWire: 'empty' });
    const result = completed(await provider().streamChat({ messages }));
    expect(result).toMatchObject({ content: 'All done.', finishReason: 'stop' });
  });

  it('still takes a stream without [DONE] but with a finish reason as finished (LM Studio, llama.cpp)', async () => {
    server.setScenario({ toolCalls: [{ name: 'builder_step_read', arguments: {} }], omitDone: true });
    const result = completed(await provider().streamChat({ messages, tools }));
    expect(result.finishReason).toBe('tool_calls');
    expect(result.toolCalls[0]?.finishedCleanly).toBe(true);
  });

  it('reports a stream with neither [DONE] nor a finish reason as broken off, its calls unfinished', async () => {
    server.setScenario({ toolCalls: [{ name: 'builder_step_read', arguments: {} }], finishReasonOnWire: 'null', omitDone: true });
    const outcome = await provider().streamChat({ messages, tools });
    if (outcome.type !== 'failed') throw new Error(`expected failed, got ${outcome.type}`);
    expect(outcome.error).toMatchObject({ code: 'AI_PROVIDER_ERROR', kind: 'stream_broken' });
    expect(outcome.partial?.toolCalls[0]?.finishedCleanly).toBe(false);
  });
});
