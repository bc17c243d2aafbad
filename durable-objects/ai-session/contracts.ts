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
  messages: { items: Array<{ id: number; role: string; content: string; createdAt: string }>; nextCursor: number | null };
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
