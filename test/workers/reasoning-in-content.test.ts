/**
 * Reasoning written into the content (DeepSeek-R1 distills and Qwen3 on vLLM or Ollama: `<think>…</think>`,
 * or no opening tag when the chat template opened the block) and DeepSeek's `reasoning_content`,
 * through full turns inside workerd with the real `openai` SDK and the scripted server, the tags split
 * across stream chunks: never streamed to viewers, stored, sent back to the model or shown as the answer.
 */
import { describe, expect, it } from 'vitest';
import { STEP, WF, connect, stepSession, supportDeskProject } from './sessions.ts';
import { finalAnswer, objectRows, send, toolCall, turnEnd, useScriptedModel } from './turns.ts';

describe('reasoning a model writes', () => {
  it('is kept out of the deltas, the event log, the stored messages, what goes back to the model and the answer', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const scripted = await useScriptedModel(owner, []);
    const answer = finalAnswer('The step reads well; nothing to change.', 'chat').content;
    // A closed block split every 3 characters, then an orphan </think> one character at a time.
    await scripted.queue({ content: '<think>THOUGHT-ONE: read the step first.</think>\n\nReading the step.', fragmentChars: 3, toolCalls: [toolCall('builder.step.read', { workflowId: WF, nodeId: STEP })] });
    await scripted.queue({ content: `THOUGHT-TWO: it reads well.\n</think>\n\n${answer}`, fragmentChars: 1 });
    const watcher = await connect(owner, base, sessionId);
    const first = await send(owner, path, 'Is the step clear?');
    const end = await turnEnd(watcher, first.data.turnId, 25_000);
    expect(end.type, JSON.stringify(end.payload)).toBe('turn.finished');
    expect(end.payload.summary).toBe('The step reads well; nothing to change.');

    const events = watcher.events().filter((e) => e.turnId === first.data.turnId);
    const streamed = events.filter((e) => e.type === 'assistant.delta').map((e) => e.payload.text).join('');
    expect(streamed).toBe(`Reading the step.${answer}`);
    expect(JSON.stringify(events)).not.toContain('THOUGHT');
    const [, second] = await scripted.requests();
    const sentBack = (second!.body as any).messages.filter((m: any) => m.role === 'assistant');
    expect(sentBack.map((m: any) => m.content)).toEqual(['Reading the step.']);
    expect(JSON.stringify(second!.body)).not.toContain('THOUGHT');
    expect(JSON.stringify(await objectRows(sessionId, 'SELECT content, extra FROM messages'))).not.toContain('THOUGHT');
    expect(JSON.stringify((await owner.get(path)).data)).not.toContain('THOUGHT');

    // DeepSeek's reasoning_content: not the answer, and never sent in a later turn's request.
    await scripted.queue({ reasoningContent: 'THOUGHT-THREE: a short reply.', ...finalAnswer('Yes, it is clear.', 'chat') });
    await scripted.queue(finalAnswer('Still clear.', 'chat'));
    const again = await send(owner, path, 'And now?');
    const end2 = await turnEnd(watcher, again.data.turnId, 25_000);
    expect(end2.payload.summary).toBe('Yes, it is clear.');
    const third = await send(owner, path, 'Once more?');
    expect((await turnEnd(watcher, third.data.turnId, 25_000)).payload.summary).toBe('Still clear.');
    const last = (await scripted.requests()).at(-1)!;
    expect(JSON.stringify(last.body)).not.toContain('THOUGHT');
    expect(JSON.stringify(last.body)).not.toContain('reasoning_content');
    watcher.close();
  });
});
