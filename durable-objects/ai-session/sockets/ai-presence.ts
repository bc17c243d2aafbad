/**
 * The AI's presence while a turn runs, derived from the turn's own events: which file it is
 * reading or writing now (an object key, when the tool call names one) and what it is doing.
 * Pure: the socket hub keeps the current value and puts it in every `presence` frame.
 */
import type { SessionEvent } from '../../../shared/ai/events.ts';
import { TURN_END_EVENTS } from '../../../shared/ai/events.ts';
import type { AiPresence } from '../../../shared/protocol.ts';

const READS: Record<string, string> = {
  'builder.workflow.read': 'workflow',
  'builder.step.read': 'step',
  'builder.agent.read': 'agent',
  'builder.asset.read': 'asset',
};

/** `type id` from the start of a tool summary (loop/summaries.ts) → an object key, or null. */
function keyFrom(type: string, id: string | undefined, workflowId: string | null): string | null {
  if (!id || id === '?') return null;
  switch (type) {
    case 'workflow':
      return `workflow:${id}`;
    case 'step':
      // A read names `wf/node`; a staged operation names the node of the session's workflow.
      if (id.includes('/')) return id.startsWith('?') ? null : `step:${id}`;
      return workflowId ? `step:${workflowId}/${id}` : null;
    case 'agent':
      return `agent:${id}`;
    case 'asset':
      return `asset:${id}`;
    default:
      return null;
  }
}

/**
 * The AI's presence after `event`, given the one before. `undefined` when the event says nothing
 * about it (comments, approvals…), null when the turn has ended.
 */
export function aiPresenceAfter(event: SessionEvent, before: AiPresence | null, workflowId: string | null): AiPresence | null | undefined {
  if ((TURN_END_EVENTS as readonly string[]).includes(event.type)) return null;
  switch (event.type) {
    case 'turn.accepted':
      return { action: 'thinking', file: null, tool: null };
    case 'turn.resumed':
    case 'llm.requested':
      return { action: 'thinking', file: before?.file ?? null, tool: null };
    case 'turn.validating':
      return { action: 'validating', file: null, tool: null };
    case 'tool.started': {
      const { name, summary } = event.payload;
      const readType = READS[name];
      if (readType) {
        const id = summary.slice(readType.length + 1).split(' ')[0];
        return { action: 'reading', file: summary.startsWith(`${readType} `) ? keyFrom(readType, id, workflowId) : null, tool: name };
      }
      if (name === 'builder.change.stage') {
        // "N operations: upsert step classify-issue, …": the first operation's object.
        const first = /^\d+ operations?: \S+ (\w+) (\S+?)(?:,|$)/u.exec(summary);
        return { action: 'writing', file: first ? keyFrom(first[1]!, first[2], workflowId) : null, tool: name };
      }
      if (name === 'builder.change.validate') return { action: 'validating', file: null, tool: name };
      return { action: 'reading', file: null, tool: name };
    }
    case 'change.staged':
      // What was actually written, once staged by the AI.
      if (event.actor.kind !== 'ai' || event.payload.source !== 'ai') return undefined;
      return { action: 'writing', file: event.payload.files[0]?.key ?? before?.file ?? null, tool: before?.tool ?? null };
    default:
      return undefined;
  }
}
