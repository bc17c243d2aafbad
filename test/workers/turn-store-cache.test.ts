/**
 * What the turn store keeps in memory (loop/turn-store.ts): a turn's record and loop messages are
 * read from the session object's SQLite once, then kept as each write of the store changes them —
 * so an iteration re-reads nothing, and what it gets is always what the rows say (what a restarted
 * object, with nothing kept, would read).
 */
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';
import { TurnStore } from '../../durable-objects/ai-session/loop/turn-store.ts';
import { toolOk } from '../../shared/ai/tool-envelope.ts';
import type { AssistantMessage } from '../../shared/llm/types.ts';
import { stepSession, supportDeskProject } from './sessions.ts';
import { sessionObject } from './turns.ts';

/** Runs `body` inside a fresh session's object with a store over a SQL handle that records each statement. */
async function inSession<T>(body: (store: TurnStore, statements: string[], fresh: () => TurnStore) => T): Promise<T> {
  const project = await supportDeskProject();
  const sessionId = await stepSession(project.owner, project.base);
  return runInDurableObject(sessionObject(sessionId), (_instance: AiSessionDurableObject, state) => {
    const sql = state.storage.sql;
    const statements: string[] = [];
    const counting = { exec: (query: string, ...bindings: unknown[]) => (statements.push(query), sql.exec(query, ...bindings)) } as unknown as SqlStorage;
    return body(new TurnStore(counting), statements, () => new TurnStore(sql));
  });
}

const USER = { userId: 'usr_1', userName: 'Owner', userRole: 'owner' as const };
const USAGE = { promptTokens: 10, completionTokens: 5, totalTokens: 15, calls: 1, estimatedCostUsd: 0.001 };
const call = (id: string): AssistantMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name: 'builder_step_read', arguments: '{"nodeId":"classify-issue"}' } }],
});

describe('the turn store keeps what a turn re-reads', () => {
  it('reads a turn it did not write (a restarted object) and its loop messages once: later reads in the iterations send no statement', async () => {
    const counts = await inSession((store, statements, fresh) => {
      const before = fresh();
      before.create({ id: 'turn_a', ...USER, content: 'Read the step.', suggestOnly: false, acceptedSeq: 1, now: 1 });
      before.setPrompt('turn_a', [{ role: 'system', content: 'You edit BMAD packages.' }, { role: 'user', content: 'Read the step.' }], {} as never);
      const firstReads = statements.length;
      store.get('turn_a');
      store.loopMessages('turn_a');
      const afterFirstRead = statements.length;
      for (let iteration = 1; iteration <= 5; iteration++) {
        store.get('turn_a');
        store.loopMessages('turn_a');
        store.recordResponse('turn_a', iteration, call(`call_${iteration}`), USAGE);
        store.get('turn_a');
        store.finishToolRun('turn_a', iteration, `call_${iteration}`, 'builder.step.read', toolOk({ markdown: '# Step' }, { revision: null }), 3);
      }
      const reads = statements.slice(afterFirstRead).filter((q) => /^\s*SELECT\b/i.test(q) && /\b(turns|messages)\b/.test(q));
      return { firstRead: afterFirstRead - firstReads, rereads: reads };
    });
    expect(counts.firstRead).toBe(2);
    expect(counts.rereads).toEqual([]);
  });

  it('keeps the turn it creates: its first iteration reads no turn or message row, and what it keeps is what the rows say', async () => {
    const result = await inSession((store, statements, fresh) => {
      store.create({ id: 'turn_e', ...USER, content: 'Make the step shorter.', suggestOnly: true, acceptedSeq: 5, now: 6 });
      const kept = { turn: store.get('turn_e'), loop: store.loopMessages('turn_e') };
      const rows = { turn: fresh().get('turn_e'), loop: fresh().loopMessages('turn_e') };
      store.sessionUsage();
      store.recordResponse('turn_e', 1, call('call_1'), USAGE);
      const unknownRun = store.toolRun('turn_e', 1, 'call_1');
      store.startToolRun('turn_e', 1, 'call_1', 'builder.change.stage');
      const started = [store.toolRun('turn_e', 1, 'call_1'), fresh().toolRun('turn_e', 1, 'call_1')];
      store.recordResponse('turn_e', 2, call('call_2'), USAGE);
      const reads = statements.filter((q) => /^\s*SELECT\b/i.test(q));
      return { kept, rows, reads, unknownRun, started, usage: store.sessionUsage(), usageRow: fresh().sessionUsage(), turnUsage: store.get('turn_e')!.usage };
    });
    expect(result.kept).toEqual(result.rows);
    // Key order too: what the Workbench gets as JSON is the same whether the record was kept or read.
    expect(JSON.stringify(result.kept)).toBe(JSON.stringify(result.rows));
    expect(result.kept.turn).toMatchObject({ status: 'running', iteration: 0, suggestOnly: true, acceptedSeq: 5, prefix: null, outcome: null });
    expect(result.kept.loop).toEqual([]);
    // The session's usage is read once (before the first response), then kept as each response writes it;
    // a tool run it never wrote is not looked for, one it wrote is read from its row.
    expect(result.reads).toEqual([expect.stringContaining('FROM kv'), expect.stringContaining('FROM tool_runs')]);
    expect(result.unknownRun).toBeUndefined();
    expect(result.started[0]).toMatchObject({ status: 'started', name: 'builder.change.stage', result: null });
    expect(result.started[0]).toEqual(result.started[1]);
    expect(result.usage).toEqual(result.usageRow);
    expect(result.usage.totalTokens).toBe(result.turnUsage.totalTokens);
    expect(result.usage.totalTokens).toBe(2 * USAGE.totalTokens);
  });

  it('keeps the prompt it writes: a turn read before its prompt is composed is not read back after', async () => {
    const result = await inSession((store, statements, fresh) => {
      store.create({ id: 'turn_d', ...USER, content: 'Read the step.', suggestOnly: false, acceptedSeq: 1, now: 4 });
      store.get('turn_d');
      store.setPrompt('turn_d', [{ role: 'system', content: 'Composed.' }, { role: 'user', content: 'Read the step.', name: undefined } as never], { persona: { source: 'x' } } as never);
      const before = statements.length;
      const kept = store.get('turn_d');
      return { reads: statements.slice(before), kept, rows: fresh().get('turn_d') };
    });
    expect(result.reads).toEqual([]);
    // What the row holds (the undefined field gone, as JSON leaves it), not the objects passed in.
    expect(result.kept).toEqual(result.rows);
    expect(JSON.stringify(result.kept)).toBe(JSON.stringify(result.rows));
  });

  it('after every write, what it keeps equals what a store with nothing kept reads from the rows', async () => {
    const checks = await inSession((store, _statements, fresh) => {
      const seen: Array<{ step: string; kept: unknown; rows: unknown }> = [];
      const check = (step: string) => {
        // Read through the kept copies, then through a store that has to read the rows.
        seen.push({ step, kept: [store.get('turn_b'), store.loopMessages('turn_b')], rows: [fresh().get('turn_b'), fresh().loopMessages('turn_b')] });
      };
      store.create({ id: 'turn_b', ...USER, content: 'Change the step.', suggestOnly: false, acceptedSeq: 7, now: 2 });
      check('created');
      store.setPrompt('turn_b', [{ role: 'system', content: 'First prompt.' }], {} as never);
      check('prompt');
      store.setPrompt('turn_b', [{ role: 'system', content: 'The prompt composed again.' }], { persona: { source: 'x' } } as never);
      check('prompt again');
      store.recordResponse('turn_b', 1, { ...call('call_1'), reasoning_content: 'thinking' }, USAGE);
      check('response');
      store.startToolRun('turn_b', 1, 'call_1', 'builder.step.read');
      store.finishToolRun('turn_b', 1, 'call_1', 'builder.step.read', toolOk({ markdown: '# Step', n: undefined }, { revision: null }), 2);
      check('tool');
      store.update('turn_b', { repairs: 1, stagedVersion: 3 });
      store.addMessage({ role: 'user', content: 'REPAIR_REQUEST: fix it' }, 'turn_b', 'repair');
      check('repair');
      store.update('turn_b', { stagedVersion: null, formatRetries: 1, resumes: 2 });
      check('discarded');
      store.addMessage({ role: 'user', content: 'A person wrote this.' }, 'turn_b', 'message');
      check('person message');
      store.recordResponse('turn_b', 2, { role: 'assistant', content: '{"responseType":"chat","assistantSummary":"done"}' }, USAGE);
      store.update('turn_b', { status: 'finished', endedAt: 99, outcome: { kind: 'finished', summary: 'done', skipped: undefined } });
      store.addMessage({ role: 'assistant', content: 'done' }, 'turn_b', 'summary');
      check('ended');
      return seen;
    });
    for (const { step, kept, rows } of checks) expect(kept, step).toEqual(rows);
    // The second prompt is what the record holds, not the first one kept from before.
    expect((checks[2]!.kept as [{ prefix: unknown }])[0].prefix).toEqual([{ role: 'system', content: 'The prompt composed again.' }]);
  });

  it('shares what it keeps frozen, so no reader can change another reader’s prompt or messages', async () => {
    const attempts = await inSession((store) => {
      store.create({ id: 'turn_c', ...USER, content: 'Hi.', suggestOnly: false, acceptedSeq: 1, now: 3 });
      store.setPrompt('turn_c', [{ role: 'system', content: 'Kept.' }], {} as never);
      store.recordResponse('turn_c', 1, call('call_1'), USAGE);
      const tryTo = (change: () => void) => {
        try {
          change();
          return 'changed';
        } catch (error) {
          return error instanceof TypeError ? 'refused' : 'other';
        }
      };
      const prefix = store.get('turn_c')!.prefix!;
      const message = store.loopMessages('turn_c')[0] as AssistantMessage;
      return [
        tryTo(() => ((prefix[0] as { content: string }).content = 'Changed.')),
        tryTo(() => prefix.push({ role: 'user', content: 'more' })),
        tryTo(() => (message.tool_calls![0]!.id = 'other')),
        store.get('turn_c')!.prefix![0]!.content,
      ];
    });
    expect(attempts).toEqual(['refused', 'refused', 'refused', 'Kept.']);
  });
});
