/**
 * What the AI session routes answer, as the workbench reads them: the same types the session
 * object builds (shared/api/ai-session-views.ts), under the names the workbench uses.
 */
import type { ApplyResult, FileDiff, SessionView } from '../../../shared/api/ai-session-views.ts';

export type {
  ChangesView,
  MessageView,
  TurnView,
  VersionView,
} from '../../../shared/api/ai-session-views.ts';
export type { SessionSummaryView, MessageAccepted } from '../../../shared/api/ai-sessions.ts';

/** `GET …/sessions/:sid`: the session view with its id. */
export type SessionStateView = SessionView & { sessionId: string };
export type FileDiffView = FileDiff;
export type ApplyResultView = ApplyResult;
