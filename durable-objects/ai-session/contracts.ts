/**
 * What the session object takes and answers over RPC (worker/routes/ai-sessions.ts calls it):
 * the acting person, the session view, and the results of stage and apply.
 */
import type { Role } from '../../shared/api/common.ts';
import type { ChangeSet } from '../../shared/ai/change-set.ts';
import type { RevisionSet, RevisionWarning } from '../../shared/ai/events.ts';
import type { ChangedFile } from '../../shared/ai/overlay.ts';
import type { SessionMeta, SessionStatus } from '../../shared/ai/session.ts';
import type { ChangeValidation } from '../../shared/ai/validation-result.ts';
import type { ContextSummary, TurnStatus, Usage } from '../../shared/ai/turn.ts';
import type { RevisionBase } from './apply.ts';
import type { Approval, ReviewThread } from './review.ts';
import type { ChangeVersion, VersionSource } from './versions.ts';

export interface Actor {
  userId: string;
  name: string;
  role: Role;
}

export interface VersionView {
  changeSetId: string;
  version: number;
  contentHash: string;
  source: VersionSource;
  status: ChangeVersion['status'];
  files: ChangedFile[];
  changeSet: ChangeSet | null;
  createdAt: string;
}

export interface SessionView {
  meta: SessionMeta;
  status: SessionStatus;
  lastSeq: number;
  latestSuggestion: VersionView | null;
  validation: ChangeValidation | null;
  /** A co-edit changed the overlay after the latest version; a new version follows shortly. */
  pendingEdits: boolean;
  review: {
    threads: ReviewThread[];
    approvals: Approval[];
    requiredApprovals: number;
    /** Approvals of the latest version's content from people other than the session's creator. */
    countedApprovals: number;
  };
  /** The conversation people see: their messages and each turn's summary (never file contents). */
  messages: { items: Array<{ id: number; role: string; content: string; turnId: string | null; createdAt: string }>; nextCursor: number | null };
  /** The latest turn (running, paused or ended) with its context summary (FR27). */
  turn: TurnView | null;
  usage: { session: Usage; tokenBudget: number | null };
}

export interface TurnView {
  turnId: string;
  status: TurnStatus;
  content: string;
  suggestOnly: boolean;
  requestedBy: { userId: string; name: string };
  iteration: number;
  repairs: number;
  usage: Usage;
  /** The seq of its `turn.accepted` event. */
  acceptedSeq: number;
  startedAt: string;
  endedAt: string | null;
  context: ContextSummary | null;
}

export interface StageResult {
  changeSetId: string;
  version: number;
  contentHash: string;
  status: 'staged';
  files: ChangedFile[];
  warnings: Array<{ code: string; message: string; path: string; hints: string[] }>;
}

export interface ApplyRequest {
  changeSetId: string;
  /** The content hash the client reviewed; must equal the version's. */
  contentHash?: string | undefined;
  revisionBase?: RevisionBase | undefined;
}

export interface ApplyResult {
  applied: true;
  sessionStatus: SessionStatus;
  changeSetId: string;
  newRevision: RevisionSet;
  warnings: RevisionWarning[];
}

export interface FileDiff {
  key: string;
  action: ChangedFile['action'];
  path?: string;
  before: string | null;
  after: string | null;
}
