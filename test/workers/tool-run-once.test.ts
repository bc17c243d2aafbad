/**
 * Exactly once per tool call across a restart (loop/tool-calls.ts): a change tool's start is a
 * checkpoint, so a change tool that an earlier instance of the object had started and never
 * finished is refused with AI_TURN_INTERRUPTED instead of running twice; a read tool keeps no start
 * row and simply runs again; a finished run is never repeated. The earlier instance is a turn store
 * of its own over the object's SQLite: the session's store never saw that turn being written.
 */
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { NewEvent, SessionEvent } from '../../shared/ai/events.ts';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';
import { AuditBuffer } from '../../durable-objects/ai-session/loop/audit-buffer.ts';
import { runToolCall } from '../../durable-objects/ai-session/loop/tool-calls.ts';
import { TurnStore } from '../../durable-objects/ai-session/loop/turn-store.ts';
import { STEP, WF, currentStep, stepChangeSet, stepSession, supportDeskProject } from './sessions.ts';
import { sessionObject } from './turns.ts';

const USER = { userId: 'usr_1', userName: 'Owner', userRole: 'owner' as const };

describe('a tool call runs exactly once across a restart', () => {
  it('refuses a change tool an earlier instance started, runs a started read again, and repeats no finished run', async () => {
    const project = await supportDeskProject();
    const sessionId = await stepSession(project.owner, project.base);
    const { markdown } = await currentStep(project.owner, project.base);
    const result = await runInDurableObject(sessionObject(sessionId), async (instance: AiSessionDurableObject, state) => {
      const core = instance.core;
      const events: NewEvent[] = [];
      const deps = { core, emit: (event: NewEvent) => (events.push(event), { ...event, seq: events.length } as unknown as SessionEvent) };
      const audit = new AuditBuffer(instance.audit, { projectId: project.projectId, sessionId });
      // The earlier instance: the turn, and a stage and a read it had started when it stopped.
      const earlier = new TurnStore(state.storage.sql);
      earlier.create({ id: 'turn_r', ...USER, content: 'Tighten the step.', suggestOnly: false, acceptedSeq: 1, now: 1 });
      earlier.startToolRun('turn_r', 1, 'call_stage', 'builder.change.stage');
      earlier.startToolRun('turn_r', 1, 'call_read', 'builder.step.read');
      const turn = core.turns.get('turn_r')!;
      const run = (toolCallId: string, name: string, args: unknown) => runToolCall(deps, turn, { toolCallId, name, args, iteration: 1, refusal: null }, audit);
      const stage = await run('call_stage', 'builder.change.stage', { changeSet: stepChangeSet(`${markdown.trimEnd()}\n\nCheck the receipt first.\n`) });
      const read = await run('call_read', 'builder.step.read', { workflowId: WF, nodeId: STEP });
      const eventsBefore = events.length;
      const readAgain = await run('call_read', 'builder.step.read', { workflowId: WF, nodeId: STEP });
      return {
        stage,
        read,
        readAgain,
        eventsOfRepeat: events.length - eventsBefore,
        staged: events.filter((e) => e.type === 'change.staged').length,
        draft: core.overlay.textOf(`step:${WF}/${STEP}`) ?? null,
        rows: state.storage.sql.exec("SELECT tool_call_id, status FROM tool_runs WHERE turn_id = 'turn_r' ORDER BY tool_call_id").toArray(),
      };
    });
    expect(result.stage).toMatchObject({ ok: false, error: { code: 'AI_TURN_INTERRUPTED' } });
    // Nothing was staged: no event, no draft of the step.
    expect(result.staged).toBe(0);
    expect(result.draft).toBeNull();
    expect(result.read).toMatchObject({ ok: true });
    // Finished once: asked again, the stored result comes back and nothing runs or is told again.
    expect(result.readAgain).toEqual(result.read);
    expect(result.eventsOfRepeat).toBe(0);
    expect(result.rows).toEqual(expect.arrayContaining([
      { tool_call_id: 'call_read', status: 'finished' },
      { tool_call_id: 'call_stage', status: 'finished' },
    ]));
  });
});
