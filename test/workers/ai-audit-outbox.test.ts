/**
 * The AI audit trail is durable (issue 13, issue 19): a turn's audit rows are written to the
 * session object's own storage first and reach D1 later, so neither a restart of the object
 * before the flush nor a D1 failure during the flush loses a row, and a retried flush never
 * writes a row twice. Real Worker, real session Durable Object, real D1, the scripted model.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';
import { connect, stepSession, supportDeskProject } from './sessions.ts';
import { finalAnswer, objectRows, send, sessionObject, toolCall, turnEnd, useScriptedModel, waitFor } from './turns.ts';

interface AuditRow {
  id: string;
  event_type: string;
  payload_json: string;
}

async function sessionAudit(sessionId: string): Promise<AuditRow[]> {
  const { results } = await env.DB.prepare('SELECT id, event_type, payload_json FROM ai_audit_events WHERE session_id = ? ORDER BY created_at, id')
    .bind(sessionId)
    .all<AuditRow>();
  return results;
}

/** Audit event types of one turn, in order, each row once. */
function typesOf(rows: AuditRow[], turnId: string): string[] {
  return rows.filter((r) => (JSON.parse(r.payload_json) as { turnId?: string }).turnId === turnId).map((r) => r.event_type);
}

/** True once the object runs no turn: the run, its last audit flush included, is over. */
function runnerIdle(sessionId: string): Promise<boolean> {
  return runInDurableObject(sessionObject(sessionId), (instance: AiSessionDurableObject) => instance.turns.activeTurnId === null);
}

async function bench() {
  const project = await supportDeskProject();
  const sessionId = await stepSession(project.owner, project.base);
  const path = `${project.base}/ai/sessions/${sessionId}`;
  return { ...project, sessionId, path };
}

describe('the audit outbox', () => {
  it('audit rows written just before a restart of the object still reach D1, once each', async () => {
    const b = await bench();
    const scripted = await useScriptedModel(b.owner, [{ content: 'unused: the queue answers the first request' }, finalAnswer('Nothing needs to change.', 'chat')]);
    // The first model request hangs: the message and the composed prompt are audited, not yet flushed.
    await scripted.queue({ reply: { content: 'never sent' }, delayMs: 60_000 }, 1);
    const watcher = await connect(b.owner, b.base, b.sessionId);
    const accepted = await send(b.owner, b.path, 'Is this step fine as it is?');
    expect(accepted.status).toBe(202);
    const turnId = accepted.data.turnId as string;
    await watcher.until(() => watcher.events().some((e) => e.type === 'llm.requested' && e.turnId === turnId), 'the first model request');
    await waitFor(async () => (await scripted.pending()) === 1, 'the hanging request');

    await abortAllDurableObjects();
    await runDurableObjectAlarm(sessionObject(b.sessionId));

    // The object came back, resumed the turn, and the rows of before the restart are in D1.
    const rows = await waitFor(async () => {
      const found = await sessionAudit(b.sessionId);
      return typesOf(found, turnId).includes('ai.turn.finished') && found;
    }, 'the turn to finish and its audit to reach D1');
    expect(typesOf(rows, turnId)).toEqual(['ai.message.sent', 'ai.prompt.composed', 'ai.turn.finished']);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
  });

  it('a D1 failure during a flush loses nothing: the rows wait in the object and reach D1 exactly once later', async () => {
    const b = await bench();
    const trigger = `fail_audit_${b.projectId.replace(/[^a-zA-Z0-9_]/g, '_')}`;
    await useScriptedModel(b.owner, [
      { toolCalls: [toolCall('builder.context.get', {}, 'call_ctx')] },
      finalAnswer('I read the context; nothing needs to change.', 'chat'),
    ]);
    const watcher = await connect(b.owner, b.base, b.sessionId);
    await env.DB.exec(
      `CREATE TRIGGER ${trigger} BEFORE INSERT ON ai_audit_events WHEN NEW.session_id = '${b.sessionId}' BEGIN SELECT RAISE(ABORT, 'injected failure'); END;`,
    );
    let turnId: string;
    try {
      const accepted = await send(b.owner, b.path, 'Read the context and tell me if anything is off.');
      expect(accepted.status).toBe(202);
      turnId = accepted.data.turnId as string;
      const end = await turnEnd(watcher, turnId);
      expect(end.type).toBe('turn.finished');
      // Every flush of the turn (after the tool call, at the end) failed: D1 has none of its rows.
      await waitFor(() => runnerIdle(b.sessionId), 'the turn to flush its audit');
      expect(typesOf(await sessionAudit(b.sessionId), turnId)).toEqual([]);
      // The retry is on the alarm's schedule, and the rows wait in the object.
      // (The retry is an alarm, not a `tasks` row: every alarm flushes the outbox, so its name needs no row.)
      expect(await runInDurableObject(sessionObject(b.sessionId), (_i: AiSessionDurableObject, state) => state.storage.getAlarm())).not.toBeNull();
      expect(await objectRows(b.sessionId, 'SELECT COUNT(*) AS n FROM audit_outbox')).toEqual([{ n: 4 }]);
    } finally {
      await env.DB.exec(`DROP TRIGGER ${trigger};`);
    }

    // The next flush (the alarm's retry) writes them, each once; a second flush adds nothing.
    await runDurableObjectAlarm(sessionObject(b.sessionId));
    const expected = ['ai.message.sent', 'ai.prompt.composed', 'ai.tool.called', 'ai.turn.finished'];
    const rows = await waitFor(async () => {
      const found = await sessionAudit(b.sessionId);
      return typesOf(found, turnId).length >= expected.length && found;
    }, 'the audit rows to reach D1');
    expect(typesOf(rows, turnId)).toEqual(expected);
    await runDurableObjectAlarm(sessionObject(b.sessionId));
    expect(typesOf(await sessionAudit(b.sessionId), turnId)).toEqual(expected);
  });

  it('a flush after D1 already took a row (the object stopped before clearing it) writes that row once', async () => {
    const b = await bench();
    const row = {
      id: `aud_outbox_${b.sessionId}`,
      projectId: b.projectId,
      sessionId: b.sessionId,
      userId: null,
      eventType: 'ai.message.sent',
      code: null,
      latencyMs: null,
      payloadJson: JSON.stringify({ turnId: 'turn_replayed', chars: 1, suggestOnly: false }),
      createdAt: new Date().toISOString(),
    };
    await env.DB.prepare('INSERT INTO ai_audit_events (id, project_id, session_id, event_type, payload_json, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .bind(row.id, row.projectId, row.sessionId, row.eventType, row.payloadJson, row.createdAt)
      .run();
    await runInDurableObject(sessionObject(b.sessionId), (instance: AiSessionDurableObject) => {
      instance.audit.write(row);
    });
    // The flush's alarm is set a moment after the write (ai-session.ts #schedule): wait for it.
    await waitFor(async () => (await runInDurableObject(sessionObject(b.sessionId), (_i: AiSessionDurableObject, state) => state.storage.getAlarm())) !== null, 'the flush alarm');
    await runDurableObjectAlarm(sessionObject(b.sessionId));
    expect(typesOf(await sessionAudit(b.sessionId), 'turn_replayed')).toEqual(['ai.message.sent']);
    expect(await objectRows(b.sessionId, 'SELECT COUNT(*) AS n FROM audit_outbox')).toEqual([{ n: 0 }]);
  });
});
