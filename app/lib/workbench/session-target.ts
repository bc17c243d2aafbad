/** Which stored session belongs to the workbench's target: the same kind, mode and target. */
import type { AiTarget } from '../ai-target.ts';
import type { SessionSummaryView } from './types.ts';

/** The session for exactly this target and mode (the server stores a workflow's id as its target id). */
export function matchesTarget(session: SessionSummaryView, target: AiTarget): boolean {
  if (session.targetType !== target.targetType || session.mode !== target.mode) return false;
  const workflowId = target.workflowId ?? null;
  switch (target.targetType) {
    case 'workflow':
      return session.workflowId === workflowId;
    case 'step':
      return session.workflowId === workflowId && session.targetId === (target.targetId ?? null);
    case 'agent':
    case 'asset':
      return session.targetId === (target.targetId ?? null);
    default: {
      const never: never = target.targetType;
      return Boolean(never);
    }
  }
}
