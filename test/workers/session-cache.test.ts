/**
 * The session keeps what it reads (issue 19): the baseline package and the review rule are read
 * from D1 once and kept (memory and the object's storage) until the Worker says the project moved
 * (the project channel's `baselineMoved`), so a tool iteration with nothing changed sends no D1
 * query; a Builder save or a settings change reaches the next read. The event seq is kept in
 * memory and stays dense across a restart. Real Worker, real session object, real D1, scripted model.
 */
import { evictDurableObject, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';
import type { Actor } from '../../durable-objects/ai-session/session.ts';
import { EventLog } from '../../durable-objects/ai-session/events/event-log.ts';
import { d1RoundTripLog, resetD1RoundTrips } from '../../worker/db/instrumented-d1.ts';
import { STEP, WF, connect, currentStep, stepChangeSet, stepSession, supportDeskProject } from './sessions.ts';
import { expectOrdered, finalAnswer, objectRows, send, sessionObject, toolCall, turnEnd, useScriptedModel } from './turns.ts';

async function bench() {
  const project = await supportDeskProject();
  const sessionId = await stepSession(project.owner, project.base);
  const actor: Actor = { userId: project.owner.userId, name: 'Owner', role: 'owner' };
  const object = sessionObject(sessionId);
  const tool = (name: string, args: unknown) =>
    runInDurableObject(object, (instance: AiSessionDurableObject) => instance.tool(project.projectId, actor, name, args));
  return { ...project, sessionId, path: `${project.base}/ai/sessions/${sessionId}`, object, tool };
}

/**
 * Start (or stop, returning what was sent) the record of the SQL that reaches D1: the counting
 * wrapper at the database boundary (worker/db/instrumented-d1.ts, on in the Workers pool), which
 * the Worker and the session objects of this isolate share.
 */
function recordD1(on: boolean): string[] {
  const sent = [...d1RoundTripLog()];
  resetD1RoundTrips();
  return on ? [] : sent;
}

/** Tables that hold what a session reads under its overlay: the package and the project's settings. */
const PACKAGE_TABLES = /\b(projects|workflows|workflow_steps|assets)\b/;

describe('the session keeps its baseline', () => {
  it('a turn of three tool iterations with nothing changed reads nothing from D1 and writes only its audit, once', async () => {
    const b = await bench();
    await useScriptedModel(b.owner, [
      finalAnswer('Warming up: nothing needs to change.', 'chat'),
      { toolCalls: [toolCall('builder.context.get', {}, 'call_a')] },
      { toolCalls: [toolCall('builder.step.read', { workflowId: WF, nodeId: STEP }, 'call_b')] },
      { toolCalls: [toolCall('builder.workflow.read', { workflowId: WF }, 'call_c')] },
      finalAnswer('I read it three ways; nothing needs to change.', 'chat'),
    ]);
    const watcher = await connect(b.owner, b.base, b.sessionId);
    // The first turn reads the baseline once (a fresh session has nothing kept yet).
    const first = await send(b.owner, b.path, 'Warm up.');
    expect((await turnEnd(watcher, first.data.turnId)).type).toBe('turn.finished');

    recordD1(true);
    const second = await send(b.owner, b.path, 'Read the step three ways.');
    expect(second.status).toBe(202);
    const ended = await turnEnd(watcher, second.data.turnId);
    expect(ended.type).toBe('turn.finished');
    const toolResults = watcher.events().filter((e) => e.type === 'tool.finished' && e.turnId === second.data.turnId);
    expect(toolResults.map((e) => e.payload.ok)).toEqual([true, true, true]);
    // Wait until the run is over (its one audit flush included), then read what was sent.
    await runInDurableObject(b.object, async (instance: AiSessionDurableObject) => instance.turns.runOf(second.data.turnId));
    const sent = recordD1(false);

    expect(sent.filter((q) => PACKAGE_TABLES.test(q))).toEqual([]);
    const audit = sent.filter((q) => q.startsWith('insert into "ai_audit_events"'));
    // Flushed at the turn's end (and perhaps once by the alarm on a slow machine), not after each of the 3 iterations.
    expect(audit.length).toBeGreaterThan(0);
    expect(audit.length).toBeLessThanOrEqual(2);
    const others = sent.filter((q) => !q.startsWith('insert into "ai_audit_events"'));
    // What is left is the sender's AI profile, read when the message is accepted (before any iteration).
    expect(others.every((q) => /llm_profiles|users/.test(q))).toBe(true);
  });

  it('after a Builder save the next tool read sees the saved step; untouched, it reads the kept one without D1', async () => {
    const b = await bench();
    const stored = await currentStep(b.owner, b.base);
    const before = await b.tool('builder.step.read', { workflowId: WF, nodeId: STEP });
    expect(before).toMatchObject({ ok: true, data: { markdown: stored.markdown }, meta: { revision: stored.revision } });

    recordD1(true);
    expect((await b.tool('builder.step.read', { workflowId: WF, nodeId: STEP })).ok).toBe(true);
    expect(recordD1(false)).toEqual([]);

    const saved = `${stored.markdown}\nSaved by hand in the Builder.\n`;
    expect((await b.owner.put(`${b.base}/workflows/${WF}/steps/${STEP}`, { markdown: saved })).status).toBe(200);
    const after = await b.tool('builder.step.read', { workflowId: WF, nodeId: STEP });
    expect(after).toMatchObject({ ok: true, data: { markdown: saved }, meta: { revision: stored.revision + 1 } });
  });

  it('a restarted object reads the kept baseline from its own storage, not from D1', async () => {
    const b = await bench();
    expect((await b.tool('builder.context.get', {})).ok).toBe(true);
    await evictDurableObject(b.object);
    recordD1(true);
    expect((await b.tool('builder.step.read', { workflowId: WF, nodeId: STEP })).ok).toBe(true);
    expect(recordD1(false)).toEqual([]);
  });

  it('a change of the review rule reaches the session: the kept rule is dropped', async () => {
    const b = await bench();
    expect((await b.owner.get(b.path)).data.review).toMatchObject({ requiredApprovals: 0 });
    expect((await b.owner.patch(b.base, { requiredApprovals: 2 })).status).toBe(200);
    expect((await b.owner.get(b.path)).data.review).toMatchObject({ requiredApprovals: 2 });
  });
});

describe('the event seq', () => {
  it('is dense and monotonic across a restart of the object, one stored row per event', async () => {
    const b = await bench();
    const stored = await currentStep(b.owner, b.base);
    const watcher = await connect(b.owner, b.base, b.sessionId);
    expect((await b.owner.post(`${b.path}/stage`, { changeSet: stepChangeSet(`${stored.markdown}\nStaged before the restart.\n`) })).status).toBe(200);
    await watcher.event('change.staged');
    await evictDurableObject(b.object);
    expect((await b.owner.post(`${b.path}/validate`)).status).toBe(200);
    const rows = (await objectRows(b.sessionId, 'SELECT seq FROM events ORDER BY seq')) as Array<{ seq: number }>;
    expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
    expect(rows.length).toBeGreaterThanOrEqual(3);
    const after = await connect(b.owner, b.base, b.sessionId);
    await after.until(() => after.events().length === rows.length, 'the replay of every event');
    expectOrdered(after.events());
  });

  it('costs one storage statement per event once the object is awake (the last seq is read once, not per event)', async () => {
    const b = await bench();
    const statements = await runInDurableObject(b.object, (_instance: AiSessionDurableObject, state) => {
      const sent: string[] = [];
      const sql = state.storage.sql;
      const counting = { exec: (query: string, ...bindings: unknown[]) => (sent.push(query), sql.exec(query, ...bindings)) } as unknown as SqlStorage;
      const log = new EventLog(counting);
      const first = log.lastSeq();
      const appended = [1, 2, 3].map(() => log.append({ type: 'session.cancelled', actor: { kind: 'system' }, payload: {} }));
      expect(appended.map((e) => e.seq)).toEqual([first + 1, first + 2, first + 3]);
      return sent;
    });
    expect(statements.filter((q) => q.startsWith('INSERT'))).toHaveLength(3);
    expect(statements.filter((q) => q.startsWith('SELECT'))).toHaveLength(1);
  });
});
