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
