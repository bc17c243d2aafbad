/**
 * JSON nested far deeper than any real value (an attack: 150,000 levels in 300 KB). `JSON.parse`
 * takes it, but what walks the value afterwards recurses (the structured clone to the session
 * object, zod, hashing), so it used to end in a 500. Through the real routes and the real loop:
 * a body is refused with 422 VALIDATION_FAILED and nothing is staged; a model's tool call is
 * answered with a tool error and the turn goes on.
 */
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../shared/json-depth.ts';
import { connect, stepSession, supportDeskProject } from './sessions.ts';
import { finalAnswer, send, turnEnd, useScriptedModel } from './turns.ts';

const LEVELS = 150_000;
const deepArray = '['.repeat(LEVELS) + ']'.repeat(LEVELS);

async function session() {
  const { owner, base } = await supportDeskProject();
  const sessionId = await stepSession(owner, base);
  return { owner, base, sessionId, path: `${base}/ai/sessions/${sessionId}` };
}

describe('JSON nested deeper than any real value', () => {
  it('refuses a change set nested 150,000 levels deep with 422 VALIDATION_FAILED and stages nothing', async () => {
    const { owner, path } = await session();
    const before = await owner.get(path);

    const res = await owner.post(path + '/stage', `{"changeSet":{"schemaVersion":"1.0","operations":${deepArray}}}`);
    expect(res.status).toBe(422);
    expect(res.error).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(res.error!.message).toContain(`${MAX_JSON_DEPTH} levels`);
    expect(JSON.stringify(res.error)).not.toMatch(/RangeError|stack|at \w+ \(/);

    const after = await owner.get(path);
    expect(after.data.lastSeq).toBe(before.data.lastSeq);
    expect((await owner.get(`${path}/changes`)).data.files).toEqual([]);
  });

  it('takes a body nested exactly to the limit as far as its schema goes (the limit refuses nothing real)', async () => {
    const { owner, path } = await session();
    const atLimit = '['.repeat(MAX_JSON_DEPTH - 2) + ']'.repeat(MAX_JSON_DEPTH - 2);
    const res = await owner.post(path + '/stage', `{"changeSet":{"schemaVersion":"1.0","operations":${atLimit}}}`);
    // Refused by the change-set contract (an operation is an object), not by the depth guard.
    expect(res.status).toBe(422);
    expect(res.error!.code).not.toBe('VALIDATION_FAILED');
  });

  it("answers a model's tool call nested 150,000 levels deep with a tool error; the turn goes on and finishes", async () => {
    const { owner, base, sessionId, path } = await session();
    const scripted = await useScriptedModel(owner, [
      { toolCalls: [{ name: 'builder_change_stage', id: 'call_deep', arguments: `{"changeSet":{"operations":${deepArray}}}` }] },
      finalAnswer('The nested call was refused; nothing changed.', 'chat'),
    ]);
    const watcher = await connect(owner, base, sessionId);
    const started = await send(owner, path, 'Tighten the step.');
    expect(started.status).toBe(202);
    const end = await turnEnd(watcher, started.data.turnId);
    expect(end.type, JSON.stringify(end.payload)).toBe('turn.finished');

    const finished = watcher.events().filter((e) => e.type === 'tool.finished');
    expect(finished.map((e) => [e.payload.toolCallId, e.payload.ok, e.payload.code])).toEqual([['call_deep', false, 'AI_TOOL_EXECUTION_ERROR']]);
    const [, second] = await scripted.requests();
    const toolMessage = (second!.body as { messages: Array<{ role: string; content: string }> }).messages.find((m) => m.role === 'tool')!;
    expect(JSON.parse(toolMessage.content).error.message).toContain(`${MAX_JSON_DEPTH} levels deep`);
    // Kept and sent back as a short placeholder, not 300 KB of brackets filling the context.
    expect(JSON.stringify(second!.body).length).toBeLessThan(100_000);
    expect((await owner.get(`${path}/changes`)).data.files).toEqual([]);
    watcher.close();
  });
});
