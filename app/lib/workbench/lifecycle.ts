/**
 * The session's lifecycle as the workbench and the sessions page show it, pure and DOM-free:
 * who applied it as which revision and who ended it (folded from `change.applied` and
 * `session.cancelled` events), the revision number a person is told, the composer's keys, the
 * sessions page's filters and labels, and where "leave" goes.
 */
import type { EventActor, RevisionSet, SessionEvent } from '../../../shared/ai/events.ts';
import type { TargetType } from '../../../shared/ai/session.ts';
import type { SessionListItemView, SessionState } from '../../../shared/api/ai-sessions.ts';
import { safeNextPath } from '../safe-next-path.ts';
import { t } from '../i18n/i18n.svelte.ts';
import '../i18n/workbench-words.ts';

export interface AppliedNotice {
  by: string;
  /** The revision a person is told ("as revision N"); null when the apply wrote no revision of the target's scope. */
  revision: number | null;
  version: number;
  changeSetId: string;
  /** The first file applied: the history page is filtered to it. */
  objectKey: string | null;
  at: string;
}

export interface CancelledNotice {
  by: string;
  at: string;
}

export interface Lifecycle {
  applied: AppliedNotice | null;
  cancelled: CancelledNotice | null;
}

export const NO_LIFECYCLE: Lifecycle = { applied: null, cancelled: null };

/** Who did it, as the notices name them (a person's name, or the AI or the system in the reader's language). */
function actorName(actor: EventActor): string {
  return actor.kind === 'user' ? actor.name || t('workbench.someone') : actor.kind === 'ai' ? t('workbench.theAi') : t('workbench.theSystem');
}

/** The revision of the scope the target lives in: a workflow's (or step's) workflow, agents.json or the assets. */
export function appliedRevision(revisions: RevisionSet, targetType: TargetType): number | null {
  switch (targetType) {
    case 'agent':
      return revisions.agentsRevision;
    case 'asset':
      return revisions.assetsRevision;
    case 'workflow':
    case 'step':
      return revisions.workflowRevision;
    default: {
      const never: never = targetType;
      return Number(never);
    }
  }
}

/** Fold one event into the lifecycle (events of other types change nothing). */
export function foldLifecycle(state: Lifecycle, event: SessionEvent, targetType: TargetType): Lifecycle {
  switch (event.type) {
    case 'change.applied':
      return {
        ...state,
        applied: {
          by: actorName(event.actor),
          revision: appliedRevision(event.payload.newRevision, targetType),
          version: event.payload.version,
          changeSetId: event.payload.changeSetId,
          objectKey: event.payload.files[0]?.key ?? null,
          at: event.at,
        },
      };
    case 'session.cancelled':
      return { ...state, cancelled: { by: actorName(event.actor), at: event.at } };
    default:
      return state;
  }
}

/** "Applied by Ana as revision 4" (without a revision when the apply wrote none of the target's scope). */
export function appliedText(notice: { by: string | null; revision: number | null }): string {
  const name = notice.by ?? t('workbench.formerMember');
  return notice.revision === null
    ? t('workbench.lifecycle.appliedBy', { name })
    : t('workbench.lifecycle.appliedByAsRevision', { name, revision: notice.revision });
}

/** What the composer does with a key press: Enter sends, Shift+Enter (and an IME composing) types. */
export function composerKey(event: { key: string; shiftKey: boolean; isComposing?: boolean }): 'send' | 'type' {
  return event.key === 'Enter' && !event.shiftKey && !event.isComposing ? 'send' : 'type';
}

/** Where leaving the workbench goes: the page the person came from (a page of this site), else the fallback. */
export function leaveHref(source: string | undefined, fallback: string): string {
  return source ? safeNextPath(source, fallback) : fallback;
}

// ------------------------------------------------------------------------------ the sessions page

export const SESSION_STATES: readonly SessionState[] = ['active', 'applied', 'cancelled', 'failed'];
export const SESSION_TARGET_TYPES: readonly TargetType[] = ['workflow', 'step', 'agent', 'asset'];

/** Each state's word, read when shown (getters), so it follows a switch of the interface language. */
export const STATE_LABELS: Readonly<Record<SessionState, string>> = {
  get active() {
    return t('workbench.lifecycle.states.active');
  },
  get applied() {
    return t('workbench.lifecycle.states.applied');
  },
  get cancelled() {
    return t('workbench.lifecycle.states.cancelled');
  },
  get failed() {
    return t('workbench.lifecycle.states.failed');
  },
};

export interface SessionFilters {
  state?: SessionState | undefined;
  targetType?: TargetType | undefined;
  createdBy?: string | undefined;
}

/** The filters from the page's address; unknown values are dropped, not sent. */
export function parseSessionFilters(params: URLSearchParams): SessionFilters {
  const state = params.get('state');
  const targetType = params.get('targetType');
  const createdBy = params.get('createdBy')?.trim();
  return {
    ...(SESSION_STATES.includes(state as SessionState) ? { state: state as SessionState } : {}),
    ...(SESSION_TARGET_TYPES.includes(targetType as TargetType) ? { targetType: targetType as TargetType } : {}),
    ...(createdBy ? { createdBy } : {}),
  };
}

/** The query string for the filters (without `?`), empty values left out. */
export function sessionFiltersSearch(filters: SessionFilters): string {
  const search = new URLSearchParams();
  if (filters.state) search.set('state', filters.state);
  if (filters.targetType) search.set('targetType', filters.targetType);
  if (filters.createdBy) search.set('createdBy', filters.createdBy);
  return search.toString();
}

/** "step ticket-triage/classify-issue", "new agent", "workflow ticket-triage". */
export function sessionTargetText(session: Pick<SessionListItemView, 'targetType' | 'targetId' | 'workflowId' | 'mode'>): string {
  const id =
    session.targetType === 'step' && session.workflowId && session.targetId
      ? `${session.workflowId}/${session.targetId}`
      : (session.targetId ?? (session.targetType === 'workflow' ? session.workflowId : null));
  const type = t(`workbench.targetNouns.${session.targetType}`);
  return id ? t('workbench.lifecycle.targetOf', { type, id }) : t('workbench.lifecycle.newTarget', { type });
}

/** A past session opens read-only; an active one opens live. */
export function opensReadOnly(session: Pick<SessionListItemView, 'state'>): boolean {
  return session.state !== 'active';
}
