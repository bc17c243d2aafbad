// The provider adapter against a server that does not stream (the scripted server's `ignoreStream`
// quirk): asked for a stream, it answers with one JSON chat completion, which the adapter reads as the
// answer it is — text, reasoning, tool calls, finish reason and usage — instead of failing the turn.

import { afterAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAI, type ScriptStep, type ScriptedOpenAI } from '../../test/support/scripted-openai/index.ts';
import { scriptModel } from '../../test/workers/scripted-model.ts';
import { createChatProvider } from './provider.ts';
import type { ChatMessage, ChatTool } from '../../shared/llm/types.ts';
import type { ChatOutcome } from './chat-outcome.ts';

const KEY = 'sk-canary-no-stream-5b81e0c4d2';
const server: ScriptedOpenAI = await startScriptedOpenAI({ control: true });
afterAll(() => server.close());

const messages: ChatMessage[] = [{ role: 'user', content: 'Improve step one' }];
const tools: ChatTool[] = [{ type: 'function', function: { name: 'builder_step_read', parameters: { type: 'object', properties: { nodeId: { type: 'string' } } } } }];

async function providerFor(steps: ScriptStep[]) {
  const scripted = await scriptModel(server.url, steps, { quirks: { ignoreStream: true } });
  const provider = createChatProvider({ baseUrl: server.url, model: scripted.model, apiKey: KEY, timeoutSeconds: 10 }, { sleep: async () => {}, random: () => 0.5 });
  return { provider, scripted };
}

function completed(outcome: ChatOutcome) {
  if (outcome.type !== 'completed') throw new Error(`expected completed, got ${JSON.stringify(outcome)}`);
  return outcome.result;
}

describe('a server that answers a stream request with one JSON completion', () => {
  it('gives its text to onTextDelta at once, with the usage the body reported', async () => {
    const { provider, scripted } = await providerFor([{ content: 'Step one reads well; I would shorten its title.' }]);
    const deltas: string[] = [];
    const result = completed(await provider.streamChat({ messages, tools, onTextDelta: (text) => deltas.push(text) }));
    expect(result.content).toBe('Step one reads well; I would shorten its title.');
    expect(deltas).toEqual([result.content]);
    expect(result.finishReason).toBe('stop');
    expect(result.usageEstimated).toBeFalsy();
    // The body's own usage, not an estimate of ours.
    expect(result.usage?.completionTokens).toBeGreaterThan(0);
    expect(result.usage?.totalTokens).toBe((result.usage?.promptTokens ?? 0) + (result.usage?.completionTokens ?? 0));
    // Asked once, for a stream: nothing was retried.
    const sent = await scripted.requests();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toMatchObject({ stream: true });
  });

  it('assembles its tool calls with their ids and arguments, and keeps DeepSeek-style reasoning', async () => {
    const { provider } = await providerFor([
      {
        content: 'Reading it.',
        reasoningContent: 'The user wants step one; read it first.',
        toolCalls: [
          { name: 'builder_step_read', arguments: { nodeId: 'one' }, id: 'call_a' },
          { name: 'builder_step_read', arguments: { nodeId: 'two' }, id: 'call_b' },
        ],
      },
    ]);
    const reasoning: string[] = [];
    const result = completed(await provider.streamChat({ messages, tools, onReasoningDelta: (text) => reasoning.push(text) }));
    expect(result.finishReason).toBe('tool_calls');
    expect(result.toolCalls.map((call) => [call.id, call.name, call.argumentsText])).toEqual([
      ['call_a', 'builder_step_read', '{"nodeId":"one"}'],
      ['call_b', 'builder_step_read', '{"nodeId":"two"}'],
    ]);
    expect(reasoning.join('')).toBe('The user wants step one; read it first.');
    expect(result.assistantMessage).toMatchObject({ role: 'assistant', content: 'Reading it.', reasoning_content: 'The user wants step one; read it first.' });
  });

  it('reports an error body sent with 200 as the provider error it is, with the key redacted', async () => {
    const { provider } = await providerFor([{ fault: 'stream_error' }]);
    const outcome = await provider.streamChat({ messages, tools });
    expect(outcome.type).toBe('failed');
    if (outcome.type !== 'failed') return;
    expect(outcome.error).toMatchObject({ code: 'AI_PROVIDER_ERROR', kind: 'stream_broken' });
    expect(outcome.error.message).toContain('The model produced an invalid response.');
    expect(JSON.stringify(outcome)).not.toContain(KEY);
  });

  it('reads server-sent events that a proxy relabelled as JSON as the stream they are', async () => {
    const scripted = await scriptModel(server.url, [{ content: 'Streamed under the wrong label.', toolCalls: [{ name: 'builder_step_read', arguments: { nodeId: 'one' } }] }]);
    // The proxy between us and the server: same bytes, `content-type: application/json`.
    const relabel: typeof fetch = async (input, init) => {
      const answer = await fetch(input, init);
      const headers = new Headers(answer.headers);
      headers.set('content-type', 'application/json');
      return new Response(answer.body, { status: answer.status, headers });
    };
    const provider = createChatProvider({ baseUrl: server.url, model: scripted.model, apiKey: KEY, timeoutSeconds: 10 }, { fetch: relabel, sleep: async () => {} });
    const result = completed(await provider.streamChat({ messages, tools }));
    expect(result.content).toBe('Streamed under the wrong label.');
    expect(result.toolCalls.map((call) => [call.name, call.argumentsText])).toEqual([['builder_step_read', '{"nodeId":"one"}']]);
  });
});
