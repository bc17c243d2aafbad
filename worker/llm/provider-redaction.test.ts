// The provider adapter never hands out the key a model echoes: not in the streamed deltas (split
// across them, spaced out, base64, URL-encoded), not in the answer, the tool arguments or the partial
// answer of a broken stream. Against the scripted OpenAI-compatible server, through the real openai SDK.

import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedOpenAI, type ScriptedOpenAI } from '../../test/support/scripted-openai/index.ts';
import { createChatProvider } from './provider.ts';
import { REDACTED } from './redact.ts';
import type { ChatResult } from '../../shared/llm/types.ts';
import type { ChatOutcome } from './chat-outcome.ts';

const KEY = 'sk-canary-echo-5e1f9a7c3b2d8e4f6a0b';
const bytes = new TextEncoder().encode(KEY);
const FORMS = {
  plain: KEY,
  spaced: [...KEY].join(' '),
  base64: btoa(String.fromCharCode(...bytes)),
  urlEncoded: [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''),
};
const server: ScriptedOpenAI = await startScriptedOpenAI();

afterAll(() => server.close());
beforeEach(() => server.reset());

async function chat(): Promise<{ outcome: ChatOutcome; deltas: string[]; reasoning: string[] }> {
  const provider = createChatProvider({ baseUrl: server.url, model: 'gpt-test', apiKey: KEY, timeoutSeconds: 10 }, { sleep: async () => undefined });
  const deltas: string[] = [];
  const reasoning: string[] = [];
  const outcome = await provider.streamChat({
    messages: [{ role: 'user', content: 'What is your key?' }],
    onTextDelta: (t) => deltas.push(t),
    onReasoningDelta: (t) => reasoning.push(t),
  });
  return { outcome, deltas, reasoning };
}

function resultOf(outcome: ChatOutcome): ChatResult {
  if (outcome.type === 'completed') return outcome.result;
  if (outcome.partial) return outcome.partial;
  throw new Error(`no answer: ${JSON.stringify(outcome)}`);
}

function expectNoEcho(value: unknown): void {
  const text = JSON.stringify(value);
  for (const form of Object.values(FORMS)) expect(text).not.toContain(form.slice(0, 12));
}

describe('streamChat with a model that echoes its key', () => {
  for (const [name, form] of Object.entries(FORMS)) {
    it(`redacts the key (${name}) across one-character deltas, in the deltas and the answer`, async () => {
      server.setScenario({ content: `My key is ${form}, see?`, reasoningContent: `I will leak ${form}.`, fragmentChars: 1 });
      const { outcome, deltas, reasoning } = await chat();
      const result = resultOf(outcome);
      expect(deltas.join('')).toBe(`My key is ${REDACTED}, see?`);
      expect(reasoning.join('')).toBe(`I will leak ${REDACTED}.`);
      expect(result.content).toBe(`My key is ${REDACTED}, see?`);
      expect(result.assistantMessage.content).toBe(result.content);
      expectNoEcho([deltas, reasoning, result]);
    });
  }

  it('redacts the key in tool arguments and keeps them valid JSON, an escaped spaced-out key included', async () => {
    server.setScenario({
      toolCalls: [{ name: 'builder_step_read', arguments: { note: [...KEY].join('\n'), copy: KEY, other: 'kept' } }],
      fragmentChars: 3,
    });
    const result = resultOf((await chat()).outcome);
    expect(JSON.parse(result.toolCalls[0]!.argumentsText)).toEqual({ note: REDACTED, copy: REDACTED, other: 'kept' });
    expect(JSON.parse(result.assistantMessage.tool_calls![0]!.function.arguments)).toEqual({ note: REDACTED, copy: REDACTED, other: 'kept' });
    expectNoEcho(result);
  });

  it('redacts the partial answer of a stream cut in the middle of the key', async () => {
    server.setScenario({ fault: 'cut_mid_text', content: `key: ${KEY} and more text after it`, afterChunks: 30 });
    const { outcome, deltas } = await chat();
    expect(outcome.type).toBe('failed');
    expectNoEcho([deltas, resultOf(outcome)]);
    expect(deltas.join('')).toContain(REDACTED);
  });
});
