/** The session events after which the workbench reads the stored view again. */
import type { SessionEventType } from '../../../shared/ai/events.ts';

/** Events after which the stored view (messages, suggestion, validation, review, usage) is read again. */
export const REFRESH_ON: ReadonlySet<SessionEventType> = new Set<SessionEventType>([
  'change.staged',
  'change.validated',
  'change.discarded',
  'change.applied',
  'apply.failed',
  'approval.added',
  'approval.revoked',
  'comment.added',
  'thread.resolved',
  'thread.reopened',
  'changes.requested',
  'changes.request.closed',
  'approvals.overridden',
  'session.cancelled',
  'turn.finished',
  'turn.failed',
  'turn.stopped',
  'turn.paused',
]);
