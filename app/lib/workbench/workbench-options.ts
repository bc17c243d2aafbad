/** What a WorkbenchSession (session.svelte.ts) is made with, and the names of its phases and actions. */
import type { Role } from '../../../shared/api/common.ts';
import type { AiTarget } from '../ai-target.ts';
import type { Connect } from './live-feed.svelte.ts';
import type { SessionsApi } from './sessions-api.ts';

/** `finding`: looking for the session; `none`: there is none yet; `ready`: attached to one. */
export type WorkbenchPhase = 'finding' | 'none' | 'ready' | 'failed';

export type WorkbenchAction = 'load' | 'send' | 'stop' | 'apply' | 'discard' | 'cancel';

export interface WorkbenchOptions {
  projectId: string;
  target: AiTarget;
  /** The caller's role on the project: viewers watch, editors and owners act. */
  role: Role;
  userId: string | null;
  api?: SessionsApi;
  connect?: Connect;
  /** How often to look again for a session while there is none (someone else may start it). */
  pollMs?: number;
  /** Open this session (from the sessions page) instead of finding the target's active one. */
  sessionId?: string;
  /** Watch only: no composer, no apply, no end (a past session). */
  readOnly?: boolean;
}
