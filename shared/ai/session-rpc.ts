/**
 * What the session object takes over RPC (worker/routes/ai-sessions.ts calls it): the acting
 * person and the apply request. What it answers lives in shared/api/ai-session-views.ts.
 */
import type { Role } from '../api/common.ts';

export type {
  ApplyResult,
  FileDiff,
  SessionView,
  StageResult,
  TurnView,
  VersionView,
} from '../api/ai-session-views.ts';

export interface Actor {
  userId: string;
  name: string;
  role: Role;
}

/** The revisions the client reviewed against (seed §5.2 `revisionBase`). */
export interface RevisionBase {
  workflowRevision?: number | undefined;
  agentsRevision?: number | undefined;
  assetsRevision?: number | undefined;
}

export interface ApplyRequest {
  changeSetId: string;
  /** The content hash the client reviewed; must equal the version's. */
  contentHash?: string | undefined;
  revisionBase?: RevisionBase | undefined;
}
