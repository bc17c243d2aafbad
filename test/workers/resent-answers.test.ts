/**
 * What a turn sends back to the model after an answer it could not use, through full turns inside
 * workerd with the real `openai` SDK and the scripted server (its chat template wanting user and
 * assistant turns to alternate): never an assistant message with neither text nor tool calls (vLLM's
 * strict templates and Mistral refuse one), never the partial text of an answer a content filter stopped.
 */
import { describe, expect, it } from 'vitest';
import { connect, stepSession, supportDeskProject } from './sessions.ts';
import { finalAnswer, send, turnEnd, useScriptedModel } from './turns.ts';
import { EMPTY_ANSWER, FILTERED_ANSWER } from '../../durable-objects/ai-session/loop/model-call.ts';

/** The assistant messages of a request that carry neither text nor tool calls. */
function emptyAssistants(body: any): unknown[] {
  return body.messages.filter((m: any) => m.role === 'assistant' && !m.tool_calls?.length && (typeof m.content !== 'string' || m.content.trim() === ''));
}

describe('answers sent back within a turn', () => {
  it('stand in for an empty answer and a filtered one with a placeholder, and the retries finish', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const scripted = await useScriptedModel(owner, [], { quirks: { alternatingRoles: true } });
    const watcher = await connect(owner, base, sessionId);

    await scripted.queue({ content: '' });
    await scripted.queue(finalAnswer('The step is clear.', 'chat'));
    const first = await send(owner, path, 'Is the step clear?');
    const end = await turnEnd(watcher, first.data.turnId, 25_000);
    expect(end.type, JSON.stringify(end.payload)).toBe('turn.finished');
    expect(end.payload.summary).toBe('The step is clear.');

    await scripted.queue({ content: 'PARTIAL-FILTERED: the first half of', finishReason: 'content_filter' });
    await scripted.queue(finalAnswer('Still clear.', 'chat'));
    const second = await send(owner, path, 'And the policy?');
    const end2 = await turnEnd(watcher, second.data.turnId, 25_000);
    expect(end2.type, JSON.stringify(end2.payload)).toBe('turn.finished');
    watcher.close();

    const bodies = (await scripted.requests()).map((r) => r.body as any);
    expect(bodies).toHaveLength(4);
    for (const body of bodies) expect(emptyAssistants(body)).toEqual([]);
    const retried = bodies[1].messages.filter((m: any) => m.role === 'assistant').map((m: any) => m.content);
    expect(retried.at(-1)).toBe(EMPTY_ANSWER);
    expect(JSON.stringify(bodies[3])).not.toContain('PARTIAL-FILTERED');
    expect(bodies[3].messages.filter((m: any) => m.role === 'assistant').at(-1).content).toBe(FILTERED_ANSWER);
  });
});
