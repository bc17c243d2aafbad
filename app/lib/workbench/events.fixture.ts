/** Session events and views for the workbench's unit tests: small, valid, and typed by the shared schemas. */
import type { EventActor, EventPayload, SessionEvent, SessionEventType } from '../../../shared/ai/events.ts';
import type { ContextSummary, Usage } from '../../../shared/ai/turn.ts';

export const OWNER: EventActor = { kind: 'user', userId: 'u_owner', name: 'Olive Owner' };
export const AI: EventActor = { kind: 'ai' };

/** One stored event; `turnId` defaults to `t1`. */
export function event<T extends SessionEventType>(
  seq: number,
  type: T,
  payload: EventPayload<T>,
  options: { turnId?: string | null; actor?: EventActor } = {},
): SessionEvent {
  // The union is built per type in shared/ai/events.ts; a generic T cannot pick its member.
  return { seq, type, at: '2026-01-01T00:00:00.000Z', actor: options.actor ?? AI, turnId: options.turnId === undefined ? 't1' : options.turnId, payload } as SessionEvent;
}

export function usage(promptTokens: number, completionTokens: number): Usage {
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, calls: 1 };
}

export const CONTEXT: ContextSummary = {
  layers: [{ id: '0A', title: 'Core Identity', chars: 1200 }],
  persona: { source: 'default', confidence: 0.2, industryDomain: 'General', filledFields: [] },
  envelope: { target_snapshot: 'step step-01' },
  budget: { contextWindow: 128_000, contextBudget: 89_600, responseBudget: 38_400, estimatedTokens: 4_000, trimmed: [] },
  history: { rawMessages: 0, summarizedMessages: 0 },
  tools: ['builder.context.get'],
  suggestOnly: false,
};

/** `turn.accepted` of `turnId` at `seq`, sent by the owner. */
export function accepted(seq: number, content: string, turnId = 't1'): SessionEvent {
  return event(seq, 'turn.accepted', { content, suggestOnly: false }, { turnId, actor: OWNER });
}

/** `turn.finished` (a chat answer) of `turnId` at `seq`. */
export function finished(seq: number, summary: string, turnId = 't1'): SessionEvent {
  return event(
    seq,
    'turn.finished',
    {
      responseType: 'chat',
      summary,
      changeSetId: null,
      version: null,
      valid: null,
      needsManualFix: false,
      iterations: 1,
      repairs: 0,
      usage: usage(100, 20),
      sessionUsage: usage(100, 20),
    },
    { turnId },
  );
}
