// The provider adapter's two time limits against the scripted server, through the real openai SDK:
// the profile's timeoutSeconds is the longest silence (before the answer starts, between its pieces),
// and the call's deadline is separate and longer. Small limits are set through the profile and options.

import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedOpenAI, type ScriptedOpenAI } from '../../test/support/scripted-openai/index.ts';
import { CALL_DEADLINE_MIN_SECONDS, callDeadlineSeconds, createChatProvider } from './provider.ts';
import type { ChatMessage } from '../../shared/llm/types.ts';

const messages: ChatMessage[] = [{ role: 'user', content: 'Write the whole step.' }];
const ANSWER = 'Every line of the step, streamed slowly by a local model. '.repeat(2);

// Chunks 120 ms apart: about 17 of them, two seconds in all, far past the 0.5 s silence limit.
const slow: ScriptedOpenAI = await startScriptedOpenAI({ chunkDelayMs: 120, scenario: { content: ANSWER } });
afterAll(() => slow.close());
beforeEach(() => slow.reset());

const provider = (timeoutSeconds: number, deadlineSeconds?: number) =>
  createChatProvider(
    { baseUrl: slow.url, model: 'm', apiKey: 'sk-test', timeoutSeconds },
    { sleep: async () => {}, ...(deadlineSeconds !== undefined ? { deadlineSeconds } : {}) },
  );

describe('the silence limit (timeoutSeconds)', () => {
  it('lets a slow but steady stream finish, however long it takes in all', async () => {
    const startedAt = Date.now();
    const outcome = await provider(0.5).streamChat({ messages });
    if (outcome.type !== 'completed') throw new Error(`expected completed, got ${JSON.stringify(outcome)}`);
    expect(outcome.result.content).toBe(ANSWER);
    // The stream took longer than the silence limit: only the silence between chunks is limited.
    expect(Date.now() - startedAt).toBeGreaterThan(500);
  });

  it('ends a stream that stops sending, with the partial answer, as AI_PROVIDER_TIMEOUT saying it stopped', async () => {
    slow.failNext({ fault: 'stall_mid_stream', afterChunks: 3 });
    const outcome = await provider(0.5).streamChat({ messages });
    if (outcome.type !== 'failed') throw new Error(`expected failed, got ${outcome.type}`);
    expect(outcome.error).toMatchObject({
      code: 'AI_PROVIDER_TIMEOUT',
      kind: 'timeout',
      message: 'The AI provider stopped sending its answer: nothing arrived for 0.5 seconds.',
    });
    expect(outcome.error.hints[0]).toContain('stalled');
    expect(outcome.partial?.content.length).toBeGreaterThan(0);
    // The answer had started: not retried.
    expect(slow.chatRequests()).toHaveLength(1);
  });

  it('ends a request whose answer never starts, saying so', async () => {
    slow.failNext({ fault: 'hang' });
    const outcome = await provider(0.5).streamChat({ messages });
    if (outcome.type !== 'failed') throw new Error(`expected failed, got ${outcome.type}`);
    expect(outcome.error).toMatchObject({ code: 'AI_PROVIDER_TIMEOUT', message: 'The AI provider did not start answering within 0.5 seconds.' });
    expect(slow.chatRequests()).toHaveLength(1);
  });
});

describe("the call's deadline", () => {
  it('still ends a steady stream that runs past it, naming it', async () => {
    const outcome = await provider(30, 0.6).streamChat({ messages });
    if (outcome.type !== 'failed') throw new Error(`expected failed, got ${outcome.type}`);
    expect(outcome.error).toMatchObject({ code: 'AI_PROVIDER_TIMEOUT', message: 'The AI provider did not finish answering within 0.6 seconds.' });
    expect(outcome.partial?.content.length).toBeGreaterThan(0);
  });

  it('is generous but bounded: at least ten minutes, three times the silence limit for long ones', () => {
    expect(CALL_DEADLINE_MIN_SECONDS).toBe(600);
    expect(callDeadlineSeconds(60)).toBe(600);
    expect(callDeadlineSeconds(600)).toBe(1800);
  });
});
