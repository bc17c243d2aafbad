/**
 * What a message costs (issue 19): the D1 round trips and the session object's storage statements
 * between a message POST arriving and its 202, and between the 202 and the turn's end; the sender's
 * AI profile read with the cookie (one query) and handed to the object, a change of it honoured by
 * the next turn, and no key in the object's storage or events. Counted at the database boundary
 * (worker/db/instrumented-d1.ts, one counter for the Worker and the objects of this isolate) and by
 * wrapping the object's SQL inside its isolate. Real Worker, session object, D1 and scripted model.
 */
import { env } from 'cloudflare:workers';
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';
import { d1RoundTripLog, d1RoundTrips, resetD1RoundTrips } from '../../worker/db/instrumented-d1.ts';
import { createDb } from '../../worker/db/client.ts';
import { findProfileRow } from '../../worker/llm/profile-store.ts';
import { ProfileMemo } from '../../worker/llm/profile-memo.ts';
import { STEP, WF, connect, stepSession, supportDeskProject } from './sessions.ts';
import { CANARY_KEY, auditRows, finalAnswer, send, sessionObject, toolCall, turnEnd, useScriptedModel, waitFor } from './turns.ts';
import { recordSql } from './object-sql.ts';

interface Mark {
  trips: number;
  log: string[];
  statements: string[];
}

/**
 * Count inside the object: every SQL statement it runs, and the counts at the moment its
 * sendMessage answers (what the 202 waited for). `stop` puts the object's own functions back.
 */
async function spyOn(object: ReturnType<typeof sessionObject>) {
  const statements: string[] = [];
  const marks: { accepted: Mark | null } = { accepted: null };
  const restore = await runInDurableObject(object, (instance: AiSessionDurableObject, state) => {
    const restoreSql = recordSql(state.storage.sql, (statement) => statements.push(statement));
    const proto = Object.getPrototypeOf(instance) as AiSessionDurableObject;
    const sendMessage = proto.sendMessage;
    proto.sendMessage = async function (this: AiSessionDurableObject, ...args: Parameters<AiSessionDurableObject['sendMessage']>) {
      const outcome = await sendMessage.apply(this, args);
      marks.accepted = { trips: d1RoundTrips(), log: [...d1RoundTripLog()], statements: [...statements] };
      return outcome;
    };
    return () => {
      restoreSql();
      proto.sendMessage = sendMessage;
    };
  });
  return { statements, marks, stop: () => runInDurableObject(object, () => restore()) };
}

async function bench() {
  const project = await supportDeskProject();
  const sessionId = await stepSession(project.owner, project.base);
  return { ...project, sessionId, path: `${project.base}/ai/sessions/${sessionId}`, object: sessionObject(sessionId) };
}

/** Settles once the object's run of `turnId` is over (its audit flush at the end included). */
function runOver(object: ReturnType<typeof sessionObject>, turnId: string) {
  return runInDurableObject(object, (instance: AiSessionDurableObject) => instance.turns.runOf(turnId));
}

const READ_ONCE = [
  { toolCalls: [toolCall('builder.step.read', { workflowId: WF, nodeId: STEP }, 'call_a')] },
  finalAnswer('Read it; nothing needs to change.', 'chat'),
];

describe('round trips of a message', () => {
  it('answers 202 after one D1 round trip (who is asking, the sender’s AI profile in the same query), the message and the turn stored first', async () => {
    const b = await bench();
    await useScriptedModel(b.owner, READ_ONCE);
    const watcher = await connect(b.owner, b.base, b.sessionId);
    const spy = await spyOn(b.object);
    resetD1RoundTrips();
    const accepted = await send(b.owner, b.path, 'Read the step.');
    expect(accepted.status).toBe(202);
    expect((await turnEnd(watcher, accepted.data.turnId)).type).toBe('turn.finished');
    await runOver(b.object, accepted.data.turnId);
    await spy.stop();
    const at202 = spy.marks.accepted!;
    // Before: 2 (the cookie's query, then the profile by the object).
    expect(at202.trips, at202.log.join('\n')).toBe(1);
    expect(at202.log[0]).toMatch(/"auth_sessions"/);
    expect(at202.log[0]).toMatch(/user_llm_profiles/);
    // Stored before the answer: the accepted event, the turn and the user's message.
    const writes = at202.statements.filter((s) => /^(INSERT|UPDATE|DELETE)/.test(s));
    expect(writes.some((s) => s.startsWith('INSERT INTO events'))).toBe(true);
    expect(writes.some((s) => s.startsWith('INSERT INTO turns'))).toBe(true);
    expect(writes.some((s) => s.startsWith('INSERT INTO messages'))).toBe(true);
    watcher.socket.close();
  });

  it('a turn of one tool call asks D1 nothing between the 202 and its end; its audit rows follow in one batch: 2 round trips in all', async () => {
    const b = await bench();
    await useScriptedModel(b.owner, READ_ONCE);
    const watcher = await connect(b.owner, b.base, b.sessionId);
    resetD1RoundTrips();
    const accepted = await send(b.owner, b.path, 'Read the step.');
    expect((await turnEnd(watcher, accepted.data.turnId)).type).toBe('turn.finished');
    await runOver(b.object, accepted.data.turnId);
    const log = [...d1RoundTripLog()];
    // Before: 3 (the cookie, the profile, the audit batch).
    expect(d1RoundTrips(), log.join('\n')).toBe(2);
    expect(log[1]).toMatch(/^insert into "ai_audit_events"/);
    const types = (await auditRows(b.projectId)).map((r) => r.event_type);
    expect(types).toContain('ai.message.sent');
    expect(types).toContain('ai.turn.finished');
    watcher.socket.close();
  });

  it('?wait answers when the turn ends, without waiting for its audit rows to reach D1; they reach it afterwards', async () => {
    const b = await bench();
    await useScriptedModel(b.owner, READ_ONCE);
    // Hold every audit flush of the object until released: D1 as slow as it likes.
    const releases: Array<() => void> = [];
    await runInDurableObject(b.object, (instance: AiSessionDurableObject) => {
      const audit = instance.audit;
      const flush = audit.flush.bind(audit);
      audit.flush = () => new Promise<void>((resolve) => releases.push(resolve)).then(flush);
    });
    // Before: the answer waited for the held flush until the wait's bound (120 s, past this test's time).
    const waited = await b.owner.post(`${b.path}/messages?wait=true`, { content: 'Read the step.' });
    expect(waited.status).toBe(200);
    expect(waited.data.turn).toMatchObject({ status: 'finished' });
    expect(releases.length).toBeGreaterThan(0);
    expect((await auditRows(b.projectId)).map((r) => r.event_type)).not.toContain('ai.turn.finished');
    // Released in the object's own context (its storage is its I/O).
    await runInDurableObject(b.object, () => releases.forEach((release) => release()));
    await waitFor(async () => (await auditRows(b.projectId)).some((r) => r.event_type === 'ai.turn.finished'), 'the audit rows in D1');
  });
});

describe('what the object stores before the 202', () => {
  /** The statements the object runs inside sendMessage (what its answer waits for), per message. */
  async function acceptSpy(object: ReturnType<typeof sessionObject>) {
    const perMessage: string[][] = [];
    const restore = await runInDurableObject(object, (instance: AiSessionDurableObject, state) => {
      let current: string[] | null = null;
      const restoreSql = recordSql(state.storage.sql, (statement) => current?.push(statement));
      const storage = state.storage;
      const setAlarm = storage.setAlarm;
      storage.setAlarm = function (this: DurableObjectStorage, ...args: Parameters<DurableObjectStorage['setAlarm']>) {
        current?.push('setAlarm');
        return setAlarm.apply(this, args);
      };
      const proto = Object.getPrototypeOf(instance) as AiSessionDurableObject;
      const sendMessage = proto.sendMessage;
      proto.sendMessage = async function (this: AiSessionDurableObject, ...args: Parameters<AiSessionDurableObject['sendMessage']>) {
        current = [];
        perMessage.push(current);
        try {
          return await sendMessage.apply(this, args);
        } finally {
          current = null;
        }
      };
      return () => {
        restoreSql();
        storage.setAlarm = setAlarm;
        proto.sendMessage = sendMessage;
      };
    });
    return { perMessage, stop: () => runInDurableObject(object, () => restore()) };
  }

  it('a message to a session that already ran a turn reads nothing and writes only the login it checked, the event, the turn, its message and its audit row', async () => {
    const b = await bench();
    const watcher = await connect(b.owner, b.base, b.sessionId);
    const spy = await acceptSpy(b.object);
    for (const content of ['First.', 'Second.']) {
      await useScriptedModel(b.owner, [finalAnswer(`Answer to ${content}`, 'chat')]);
      const accepted = await send(b.owner, b.path, content);
      expect(accepted.status).toBe(202);
      expect((await turnEnd(watcher, accepted.data.turnId)).type).toBe('turn.finished');
      await runOver(b.object, accepted.data.turnId);
    }
    await spy.stop();
    const second = spy.perMessage[1]!;
    // Before: the open turn read twice, the task rows written twice and their earliest read back (10 statements).
    expect(second.filter((s) => s.startsWith('SELECT')), second.join('\n')).toEqual([]);
    expect(second.filter((s) => /\btasks\b/.test(s)), second.join('\n')).toEqual([]);
    // Before: setAlarm too, so the 202 waited for the platform's alarm scheduler (an alarm set sooner is scheduled before its commit).
    // The profile was saved between the two messages (useScriptedModel): the object forgot what it
    // kept of the sender, so the Worker checked the cookie again and the object keeps that login.
    expect(second.map((s) => s.split(' (')[0])).toEqual(['INSERT INTO known_logins', 'INSERT INTO events', 'INSERT INTO turns', 'INSERT INTO messages', 'INSERT INTO audit_outbox']);
    // The first message of a session just created reads nothing either (its object knew it had no turn).
    // Before: the open turn and the token budget read (kv).
    expect(spy.perMessage[0]!.filter((s) => s.startsWith('SELECT')), spy.perMessage[0]!.join('\n')).toEqual([]);
    watcher.socket.close();
  });

  it('a running turn whose object stopped after the 202, before its watchdog alarm was set, is resumed when the object starts again', async () => {
    const b = await bench();
    const watcher = await connect(b.owner, b.base, b.sessionId);
    const scripted = await useScriptedModel(b.owner, [{ content: 'unused: the queue answers the first request' }, finalAnswer('After the restart.', 'chat')]);
    await scripted.queue({ reply: { content: 'never sent' }, delayMs: 60_000 }, 1);
    const accepted = await send(b.owner, b.path, 'First.');
    expect(accepted.status).toBe(202);
    await waitFor(async () => (await scripted.pending()) === 1, 'the hanging request');
    const seen = watcher.events().at(-1)!.seq;
    // As if the object stopped in the moment between its answer and its alarm: no alarm left.
    await runInDurableObject(b.object, (_i: AiSessionDurableObject, state) => state.storage.deleteAlarm());
    await abortAllDurableObjects();
    await watcher.until(() => watcher.closed, 'the socket to close with the restart');
    // Before: nothing woke the turn (no alarm), it stayed running for good.
    const resumed = await connect(b.owner, b.base, b.sessionId, seen);
    expect((await turnEnd(resumed, accepted.data.turnId)).type).toBe('turn.finished');
    expect(resumed.events().some((e) => e.type === 'turn.resumed' && e.turnId === accepted.data.turnId)).toBe(true);
    resumed.socket.close();
  });

  it('a second message’s turn, its object restarted right after the 202, is resumed by the alarm and finishes', async () => {
    const b = await bench();
    const watcher = await connect(b.owner, b.base, b.sessionId);
    await useScriptedModel(b.owner, [finalAnswer('First.', 'chat')]);
    const first = await send(b.owner, b.path, 'First.');
    expect((await turnEnd(watcher, first.data.turnId)).type).toBe('turn.finished');
    await runOver(b.object, first.data.turnId);
    // The second turn's first model request hangs: the object is evicted while it waits.
    const scripted = await useScriptedModel(b.owner, [{ content: 'unused: the queue answers the first request' }, finalAnswer('After the restart.', 'chat')]);
    await scripted.queue({ reply: { content: 'never sent' }, delayMs: 60_000 }, 1);
    const second = await send(b.owner, b.path, 'Second.');
    expect(second.status).toBe(202);
    await waitFor(async () => (await scripted.pending()) === 1, 'the hanging request');
    const seen = watcher.events().at(-1)!.seq;
    await abortAllDurableObjects();
    // The alarm the 202 waited for is still set after the restart, and it resumes the turn.
    expect(await runDurableObjectAlarm(sessionObject(b.sessionId))).toBe(true);
    await watcher.until(() => watcher.closed, 'the socket to close with the restart');
    const resumed = await connect(b.owner, b.base, b.sessionId, seen);
    expect((await turnEnd(resumed, second.data.turnId)).type).toBe('turn.finished');
    expect(resumed.events().some((e) => e.type === 'turn.resumed' && e.turnId === second.data.turnId)).toBe(true);
    resumed.socket.close();
  });
});

describe('the sender’s AI profile, read with the cookie', () => {
  it('a profile changed between two turns is the one the second turn uses; one turned off or deleted refuses the next message', async () => {
    const b = await bench();
    const first = await useScriptedModel(b.owner, [finalAnswer('First model.', 'chat')]);
    const watcher = await connect(b.owner, b.base, b.sessionId);
    const one = await send(b.owner, b.path, 'First.');
    expect((await turnEnd(watcher, one.data.turnId)).type).toBe('turn.finished');
    const second = await useScriptedModel(b.owner, [finalAnswer('Second model.', 'chat')]);
    const two = await send(b.owner, b.path, 'Second.');
    expect((await turnEnd(watcher, two.data.turnId)).type).toBe('turn.finished');
    expect((await first.requests()).length).toBe(1);
    expect((await second.requests()).length).toBe(1);

    const off = await b.owner.put('/api/users/me/llm-profile', { provider: 'disabled' });
    expect(off.status).toBe(200);
    const refused = await send(b.owner, b.path, 'Third.');
    expect(refused.error?.code).toBe('AI_DISABLED');

    await useScriptedModel(b.owner, [finalAnswer('Fourth.', 'chat')]);
    await env.DB.prepare('DELETE FROM user_llm_profiles WHERE user_id = ?').bind(b.owner.userId).run();
    const gone = await send(b.owner, b.path, 'Fourth.');
    expect(gone.error?.code).toBe('AI_DISABLED');
    // Refused before anything was stored: only the two turns above exist.
    const turns = await runInDurableObject(b.object, (_i: AiSessionDurableObject, state) => state.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM turns').one().n);
    expect(turns).toBe(2);
    watcher.socket.close();
  });

  it('neither the key nor its ciphertext is kept in the object’s storage or sent in an event', async () => {
    const b = await bench();
    await useScriptedModel(b.owner, READ_ONCE);
    const watcher = await connect(b.owner, b.base, b.sessionId);
    const accepted = await send(b.owner, b.path, 'Read the step.');
    expect((await turnEnd(watcher, accepted.data.turnId)).type).toBe('turn.finished');
    await runOver(b.object, accepted.data.turnId);
    const sealed = await env.DB.prepare('SELECT api_key_ciphertext AS c FROM user_llm_profiles WHERE user_id = ?').bind(b.owner.userId).first<{ c: string }>();
    expect(sealed?.c).toBeTruthy();
    const stored = await runInDurableObject(b.object, (_i: AiSessionDurableObject, state) => {
      const tables = state.storage.sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'").toArray();
      return JSON.stringify(tables.map((t) => state.storage.sql.exec(`SELECT * FROM "${t.name}"`).toArray()));
    });
    for (const secret of [CANARY_KEY, sealed!.c]) {
      expect(stored).not.toContain(secret);
      expect(JSON.stringify(watcher.texts())).not.toContain(secret);
    }
    watcher.socket.close();
  });

  it('the object opens a sender’s key once per stored row: the same row again is not decrypted again, a re-saved key is', async () => {
    const b = await bench();
    await useScriptedModel(b.owner, READ_ONCE);
    const db = createDb(env.DB);
    const memo = new ProfileMemo(env);
    const subtle = crypto.subtle;
    const decrypt = subtle.decrypt;
    let opened = 0;
    subtle.decrypt = function (...args: Parameters<SubtleCrypto['decrypt']>) {
      opened++;
      return decrypt.apply(subtle, args);
    } as SubtleCrypto['decrypt'];
    try {
      const row = (await findProfileRow(db, b.owner.userId))!;
      const first = await memo.resolve(b.owner.userId, row);
      const again = await memo.resolve(b.owner.userId, { ...row });
      expect(first).toMatchObject({ type: 'available', profile: { apiKey: CANARY_KEY } });
      expect(again).toEqual(first);
      expect(opened).toBe(1);
      const resaved = await b.owner.put('/api/users/me/llm-profile', {
        provider: 'openai-compatible',
        preset: 'custom',
        baseUrl: row.baseUrl,
        model: row.model,
        apiKey: 'sk-second-key-0123456789',
        timeoutSeconds: row.timeoutSeconds,
      });
      expect(resaved.status).toBe(200);
      // The save itself opens keys (its answer's availability); count the memo's alone.
      opened = 0;
      const next = await memo.resolve(b.owner.userId, (await findProfileRow(db, b.owner.userId))!);
      expect(next).toMatchObject({ type: 'available', profile: { apiKey: 'sk-second-key-0123456789' } });
      expect(opened).toBe(1);
      expect(await memo.resolve(b.owner.userId, null)).toMatchObject({ type: 'unavailable', code: 'AI_DISABLED' });
    } finally {
      subtle.decrypt = decrypt;
    }
  });
});
