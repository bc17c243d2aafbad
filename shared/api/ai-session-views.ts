/**
 * What the AI session routes answer (GET …/sessions/:sid, …/changes, stage, apply): the session
 * view, versions, turns, review and diffs. The session object builds them, the Worker passes them
 * on, the Workbench reads them: one set of types for all three.
 */
import type { ChangeImpactView } from '../ai/change-impact.ts';
import type { ChangeSet } from '../ai/change-set.ts';
import type { RevisionSet, RevisionWarning } from '../ai/events.ts';
import type { ChangedFile } from '../ai/overlay.ts';
import type { SessionMeta, SessionStatus } from '../ai/session.ts';
import type { ContextSummary, TurnStatus, Usage } from '../ai/turn.ts';
import type { ChangeValidation } from '../ai/validation-result.ts';

export type VersionStatus = 'staged' | 'validated' | 'applied' | 'rejected';
/**
 * `ai`: staged by the model; `edit`: a person's co-edit; `api`: staged by a person over HTTP; `restore`: a checkpoint
 * restored; `rebase`: the draft moved onto a new baseline (clean merges or a person's resolution of a conflict);
 * `undo`: a person undid a file, a hunk or a graph part (or re-applied an undo). Versions stored before `undo`
 * existed keep the source they were stored with (`edit`).
 */
export type VersionSource = 'ai' | 'edit' | 'api' | 'restore' | 'rebase' | 'undo';

export interface ReviewComment {
  id: string;
  authorId: string;
  authorName: string;
  body: string;
  createdAt: string;
}

export interface ReviewThread {
  id: string;
  objectKey: string;
  /** The first commented line as the draft is now (it follows edits); for an outdated thread, where it was. */
  line: number | null;
  /** The last commented line (equal to `line` for one line; null for a comment on the whole file). */
  lineEnd: number | null;
  /** The commented lines as they were when the thread started (what an outdated thread shows). */
  quote: string | null;
  status: 'open' | 'resolved';
  /** `current`: the commented lines are still there unchanged; `outdated`: they were rewritten, or the file is gone. */
  anchor: 'current' | 'outdated';
  createdBy: string;
  createdAt: string;
  resolvedBy: string | null;
  resolvedAt: string | null;
  comments: ReviewComment[];
  /** The version an AI turn made when it said it addressed this thread; the thread stays open until a person resolves it. */
  addressedInVersion?: number | null;
}

export interface Approval {
  version: number;
  userId: string;
  userName: string;
  contentHash: string;
  createdAt: string;
}

/** An open "request changes" (closed ones are in the event log). */
export interface ChangeRequest {
  id: string;
  version: number;
  userId: string;
  userName: string;
  body: string;
  createdAt: string;
}

/** An owner's recorded decision to apply a version without the required approvals. */
export interface ApprovalOverride {
  version: number;
  userId: string;
  userName: string;
  reason: string;
  createdAt: string;
}

export interface VersionView {
  changeSetId: string;
  version: number;
  contentHash: string;
  source: VersionSource;
  status: VersionStatus;
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
    /** Approvals of the latest version's content from people allowed to approve it. */
    countedApprovals: number;
    /** Open requests for changes. */
    changeRequests: ChangeRequest[];
    /** The owner's override for the latest version's content, if any. */
    override: ApprovalOverride | null;
    /** Who may not approve the latest version: its creator, whoever sent a message, whoever edited the draft. */
    authors: string[];
    /** Why the review blocks Apply now (the same reason the session gives when it refuses), or null. */
    block: { code: string; message: string } | null;
  };
  /** The conversation people see: their messages and each turn's summary (never file contents). */
  messages: { items: MessageView[]; nextCursor: number | null };
  /** The latest turn (running, paused or ended) with its context summary. */
  turn: TurnView | null;
  usage: { session: Usage; tokenBudget: number | null };
}

/** One line of the conversation: a person's message or a turn's summary (never file contents). */
export interface MessageView {
  id: number;
  role: string;
  content: string;
  turnId: string | null;
  createdAt: string;
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
  /** Where the declared impact disagrees with what was staged (information; the staging went ahead). */
  notes?: string[];
  /** The impact of everything staged so far, derived by the system from the files. */
  impact?: ChangeImpactView;
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

/** Staged files whose baseline moved since they were staged, and the revisions the diff was read at. */
export interface BaselineDriftView {
  moved: Array<{ key: string; path?: string; baseRevision: number; currentRevision: number }>;
  /** What Apply sends as `revisionBase`: the revisions the shown diff was computed against. */
  revisionBase: { workflowRevision?: number; agentsRevision: number; assetsRevision: number };
}

/** `GET …/sessions/:sid/changes`: `changeSetId` is null when the overlay is ahead of every version. */
export interface ChangesView {
  changeSetId: string | null;
  version: number | null;
  contentHash: string;
  files: FileDiff[];
  /** Derived from the files (never from a model's claim): counts, objects, references, risk flags. */
  impact: ChangeImpactView;
  /** Absent from servers before it existed. */
  baseline?: BaselineDriftView;
}
