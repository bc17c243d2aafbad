/** The AI's presence from a turn's events: the file it reads or writes, and null once the turn ends. */
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../shared/ai/events.ts';
import type { AiPresence } from '../../../shared/protocol.ts';
import { aiPresenceAfter } from './ai-presence.ts';
import { argumentsSummary } from '../loop/summaries.ts';

const at = '2026-01-01T00:00:00.000Z';
const ai = { kind: 'ai' } as const;
function event(type: string, payload: Record<string, unknown>, actor: SessionEvent['actor'] = ai): SessionEvent {
  return { seq: 1, at, turnId: 't1', type, actor, payload } as SessionEvent;
}
function started(name: string, args: unknown): SessionEvent {
  return event('tool.started', { iteration: 1, toolCallId: 'c1', name, summary: argumentsSummary(name, args) });
}

describe('the AI presence', () => {
  it('follows a turn: thinking, reading a step, writing a step, validating, then gone', () => {
    let p: AiPresence | null = null;
    const seen: Array<AiPresence | null> = [];
    const steps: SessionEvent[] = [
      event('turn.accepted', { content: 'Tighten it', suggestOnly: false }),
      started('builder.step.read', { workflowId: 'ticket-triage', nodeId: 'classify-issue' }),
      started('builder.change.stage', { changeSet: { operations: [{ op: 'upsert', targetType: 'step', target: { workflowId: 'ticket-triage', nodeId: 'classify-issue' } }] } }),
      event('turn.validating', { version: 1, changeSetId: 'cs_1' }),
      event('turn.finished', {}),
    ];
    for (const e of steps) {
      const next = aiPresenceAfter(e, p, 'ticket-triage');
      if (next !== undefined) p = next;
      seen.push(p);
    }
    expect(seen).toEqual([
      { action: 'thinking', file: null, tool: null },
      { action: 'reading', file: 'step:ticket-triage/classify-issue', tool: 'builder.step.read' },
      { action: 'writing', file: 'step:ticket-triage/classify-issue', tool: 'builder.change.stage' },
      { action: 'validating', file: null, tool: null },
      null,
    ]);
  });

  it('names assets, agents and workflows, and nothing for a tool without a file', () => {
    const after = (e: SessionEvent) => aiPresenceAfter(e, null, null);
    expect(after(started('builder.asset.read', { path: 'assets/policy.md' }))?.file).toBe('asset:assets/policy.md');
    expect(after(started('builder.agent.read', { agentId: 'triage-bot' }))?.file).toBe('agent:triage-bot');
    expect(after(started('builder.workflow.read', { workflowId: 'weekly' }))?.file).toBe('workflow:weekly');
    expect(after(started('builder.refs.find', { locator: { type: 'agent', id: 'x' } }))).toEqual({ action: 'reading', file: null, tool: 'builder.refs.find' });
    // A step staged without a known workflow cannot be named.
    expect(after(started('builder.change.stage', { changeSet: { operations: [{ op: 'upsert', targetType: 'step', target: { nodeId: 'n' } }] } }))?.file).toBeNull();
  });

  it('takes the staged file from the AI\'s change.staged and ignores a person\'s events', () => {
    const staged = event('change.staged', { version: 2, changeSetId: 'cs_2', contentHash: 'h', source: 'ai', files: [{ key: 'asset:assets/a.md', action: 'M' }] });
    expect(aiPresenceAfter(staged, { action: 'writing', file: null, tool: 'builder.change.stage' }, null)).toEqual({ action: 'writing', file: 'asset:assets/a.md', tool: 'builder.change.stage' });
    const edit = event('change.staged', { version: 3, changeSetId: 'cs_3', contentHash: 'h', source: 'edit', files: [] }, { kind: 'user', userId: 'u', name: 'Edith' });
    expect(aiPresenceAfter(edit, null, null)).toBeUndefined();
    expect(aiPresenceAfter(event('comment.added', {}, { kind: 'user', userId: 'u', name: 'Edith' }), null, null)).toBeUndefined();
  });
});
