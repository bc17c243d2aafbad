/**
 * The sessions page's reads (GET …/ai/sessions): a project's sessions with their filters and what
 * each row shows beyond the stored summary — the starter's name, how the session ended up
 * (`state`), how many files it changed, the latest apply (change set, revision, who, when) and who
 * ended a cancelled one. Everything comes from D1: `ai_sessions`, `ai_change_sets` (status
 * `applied`), `revision_history` (the rows an apply wrote) and `ai_audit_events` (the cancel).
 *
 * Definitions:
 * - state = `applied` when any change set of the session has status `applied` (a session stays
 *   `active` after an apply and may be applied again); else the stored status.
 * - applied = the newest `ai_apply` write of the session: its change set, its time and actor, and
 *   the new revision of its rows in the target's scope (workflow/step: the workflow's rows; agent:
 *   `agent:` rows; asset: `asset:` rows), the highest if several; null without such a row.
 * - filesChanged = the distinct objects that write touched once applied; before that the files of
 *   the latest mirrored version (`latest_suggestion_json.files`), 0 when none.
 * - endedAt / endedBy = the `ai.session.cancelled` audit row of a cancelled session.
 * - impact = the digest (files, lines, risk flags) mirrored with the latest version
 *   (`latest_suggestion_json.impact`, shared/ai/impact-digest.ts), null before any.
 */
import { and, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { aiAuditEvents, aiSessions, revisionHistory, users } from '../db/schema.ts';
import type { SessionListItemView, SessionState } from '../../shared/api/ai-sessions.ts';
import type { SessionStatus, TargetType } from '../../shared/ai/session.ts';
import type { FileDiff } from '../../shared/api/ai-session-views.ts';
import { readImpactDigest } from '../../shared/ai/impact-digest.ts';

export interface SessionListFilters {
  status?: SessionStatus | undefined;
  state?: SessionState | undefined;
  targetType?: TargetType | undefined;
  createdBy?: string | undefined;
  limit: number;
}

const hasApplied = sql`EXISTS (SELECT 1 FROM ai_change_sets cs WHERE cs.session_id = ${aiSessions.id} AND cs.status = 'applied')`;

function stateCondition(state: SessionState): SQL {
  if (state === 'applied') return hasApplied;
  return and(eq(aiSessions.status, state), sql`NOT ${hasApplied}`)!;
}

/** Is a history row's object in the scope whose revision the target's apply is known by? */
function inTargetScope(targetType: TargetType, workflowId: string | null, objectKey: string): boolean {
  switch (targetType) {
    case 'agent':
      return objectKey.startsWith('agent:');
    case 'asset':
      return objectKey.startsWith('asset:');
    case 'workflow':
    case 'step':
      return workflowId !== null && (objectKey === `workflow:${workflowId}` || objectKey.startsWith(`step:${workflowId}/`) || objectKey === `graph:${workflowId}`);
    default: {
      const never: never = targetType;
      return Boolean(never);
    }
  }
}

function suggestionOf(json: string | null): { files?: unknown; impact?: unknown } {
  if (!json) return {};
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'object' && value !== null ? (value as { files?: unknown; impact?: unknown }) : {};
  } catch {
    return {};
  }
}

function suggestionFiles(json: string | null): number {
  const files = suggestionOf(json).files;
  return Array.isArray(files) ? files.length : 0;
}

export async function listSessions(db: Db, projectId: string, filters: SessionListFilters): Promise<SessionListItemView[]> {
  const conditions: SQL[] = [eq(aiSessions.projectId, projectId)];
  if (filters.status) conditions.push(eq(aiSessions.status, filters.status));
  if (filters.state) conditions.push(stateCondition(filters.state));
  if (filters.targetType) conditions.push(eq(aiSessions.targetType, filters.targetType));
  if (filters.createdBy) conditions.push(eq(aiSessions.userId, filters.createdBy));
  const rows = await db
    .select({
      id: aiSessions.id,
      workflowId: aiSessions.workflowId,
      targetType: aiSessions.targetType,
      targetId: aiSessions.targetId,
      mode: aiSessions.mode,
      status: aiSessions.status,
      userId: aiSessions.userId,
      userName: users.name,
      latestSuggestionJson: aiSessions.latestSuggestionJson,
      createdAt: aiSessions.createdAt,
      updatedAt: aiSessions.updatedAt,
      applied: hasApplied.mapWith(Boolean),
    })
    .from(aiSessions)
    .leftJoin(users, eq(users.id, aiSessions.userId))
    .where(and(...conditions))
    .orderBy(desc(aiSessions.createdAt), desc(aiSessions.id))
    .limit(filters.limit);
  if (rows.length === 0) return [];

  const appliedIds = rows.filter((r) => r.applied).map((r) => r.id);
  const cancelledIds = rows.filter((r) => r.status === 'cancelled').map((r) => r.id);
  const [writes, cancels] = await Promise.all([
    appliedIds.length === 0
      ? []
      : db
          .select({
            sessionId: revisionHistory.sessionId,
            changeSetId: revisionHistory.changeSetId,
            writeId: revisionHistory.writeId,
            objectKey: revisionHistory.objectKey,
            newRevision: revisionHistory.newRevision,
            actorName: users.name,
            createdAt: revisionHistory.createdAt,
          })
          .from(revisionHistory)
          .leftJoin(users, eq(users.id, revisionHistory.actorId))
          .where(and(eq(revisionHistory.projectId, projectId), eq(revisionHistory.action, 'ai_apply'), inArray(revisionHistory.sessionId, appliedIds)))
          .orderBy(desc(revisionHistory.createdAt), desc(revisionHistory.id)),
    cancelledIds.length === 0
      ? []
      : db
          .select({ sessionId: aiAuditEvents.sessionId, name: users.name, createdAt: aiAuditEvents.createdAt })
          .from(aiAuditEvents)
          .leftJoin(users, eq(users.id, aiAuditEvents.userId))
          .where(and(eq(aiAuditEvents.projectId, projectId), eq(aiAuditEvents.eventType, 'ai.session.cancelled'), inArray(aiAuditEvents.sessionId, cancelledIds)))
          .orderBy(desc(aiAuditEvents.createdAt)),
  ]);

  return rows.map((r): SessionListItemView => {
    // The newest write of this session (rows come newest first), then every row of that write.
    const newest = writes.find((w) => w.sessionId === r.id);
    const rowsOfWrite = newest ? writes.filter((w) => w.writeId === newest.writeId) : [];
    const scoped = rowsOfWrite.filter((w) => inTargetScope(r.targetType, r.workflowId, w.objectKey));
    const best = (scoped.length > 0 ? scoped : rowsOfWrite).reduce<(typeof rowsOfWrite)[number] | null>(
      (top, w) => (top === null || w.newRevision > top.newRevision ? w : top),
      null,
    );
    const cancel = cancels.find((c) => c.sessionId === r.id);
    const state: SessionState = r.applied ? 'applied' : r.status;
    return {
      sessionId: r.id,
      workflowId: r.workflowId,
      targetType: r.targetType,
      targetId: r.targetId,
      mode: r.mode,
      status: r.status,
      createdBy: r.userId,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      state,
      createdByName: r.userName ?? null,
      filesChanged: newest ? new Set(rowsOfWrite.map((w) => w.objectKey)).size : suggestionFiles(r.latestSuggestionJson),
      applied: newest
        ? {
            changeSetId: newest.changeSetId ?? '',
            revision: best?.newRevision ?? null,
            objectKey: best?.objectKey ?? null,
            by: newest.actorName ?? null,
            at: newest.createdAt,
          }
        : null,
      impact: readImpactDigest(suggestionOf(r.latestSuggestionJson).impact),
      endedAt: cancel?.createdAt ?? null,
      endedBy: cancel?.name ?? null,
    };
  });
}

/**
 * The final diff of a session's newest apply, from the history rows it wrote (before and after
 * of each object), for the read-only view of a past session: its overlay is empty once applied.
 */
export async function appliedFiles(db: Db, projectId: string, sessionId: string): Promise<FileDiff[]> {
  const rows = await db
    .select({
      writeId: revisionHistory.writeId,
      objectKey: revisionHistory.objectKey,
      before: revisionHistory.contentBefore,
      after: revisionHistory.contentAfter,
      metaJson: revisionHistory.metaJson,
    })
    .from(revisionHistory)
    .where(and(eq(revisionHistory.projectId, projectId), eq(revisionHistory.sessionId, sessionId), eq(revisionHistory.action, 'ai_apply')))
    .orderBy(desc(revisionHistory.createdAt), desc(revisionHistory.id));
  const newest = rows[0]?.writeId;
  return rows
    .filter((r) => r.writeId === newest)
    .map((r): FileDiff => {
      const { path, op } = readMeta(r.metaJson);
      return {
        key: r.objectKey,
        action: op === 'create' || r.before === null ? 'A' : op === 'delete' || r.after === null ? 'D' : 'M',
        ...(path ? { path } : {}),
        before: r.before,
        after: r.after,
      };
    })
    .sort((a, b) => a.key.localeCompare(b.key));
}

/** The history row's `meta_json` as apply.ts writes it: `{op, path?}`. */
function readMeta(json: string | null): { path: string | undefined; op: string | undefined } {
  if (!json) return { path: undefined, op: undefined };
  try {
    const meta = JSON.parse(json) as { path?: unknown; op?: unknown };
    return { path: typeof meta.path === 'string' ? meta.path : undefined, op: typeof meta.op === 'string' ? meta.op : undefined };
  } catch {
    return { path: undefined, op: undefined };
  }
}
