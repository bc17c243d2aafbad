/**
 * What the session object takes over RPC (worker/routes/ai-sessions.ts calls it): the acting
 * person and the apply request. What it answers lives in shared/api/ai-session-views.ts.
 */
import type { Role } from '../../shared/api/common.ts';
import type { RevisionBase } from './apply.ts';

export type {
  ApplyResult,
  FileDiff,
  SessionView,
  StageResult,
  TurnView,
  VersionView,
} from '../../shared/api/ai-session-views.ts';

export interface Actor {
  userId: string;
  name: string;
  role: Role;
}

export interface ApplyRequest {
  changeSetId: string;
  /** The content hash the client reviewed; must equal the version's. */
  contentHash?: string | undefined;
  revisionBase?: RevisionBase | undefined;
}
