/**
 * Revision history: list and read, and the pieces a revert needs (history-revert.ts reverts). A
 * revert never rewrites history: it writes a new revision, recorded as a `revert` write of its own.
 */
import { and, desc, eq, gt, inArray, lt, ne, or, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { aiAuditEvents, revisionHistory, users, workflowSteps, workflows } from '../db/schema.ts';
import { ApiError } from '../../shared/api-error.ts';
import { commitChanges, readRevision, type CommitContext, type ObjectWrite, type RevisionScope } from './commit.ts';
import { parseObjectKey } from '../../shared/object-keys.ts';
import { nextWorkflowPosition } from './workflow-order.ts';
import type { HistoryAction, HistoryEntryDetailView, HistoryEntryView } from '../../shared/api/store.ts';

const columns = {
  id: revisionHistory.id,
  objectKey: revisionHistory.objectKey,
  action: revisionHistory.action,
  oldRevision: revisionHistory.oldRevision,
  newRevision: revisionHistory.newRevision,
  actorId: revisionHistory.actorId,
  actorName: users.name,
  sessionId: revisionHistory.sessionId,
  changeSetId: revisionHistory.changeSetId,
  createdAt: revisionHistory.createdAt,
};

type Row = { [K in keyof typeof columns]: unknown } & Record<string, unknown>;

function toView(row: Row): HistoryEntryView {
  return {
    id: row.id as string,
    objectKey: row.objectKey as string,
    action: row.action as HistoryAction,
    oldRevision: row.oldRevision as number,
    newRevision: row.newRevision as number,
    actor: row.actorId ? { id: row.actorId as string, name: (row.actorName as string | null) ?? '' } : null,
    sessionId: (row.sessionId as string | null) ?? null,
    changeSetId: (row.changeSetId as string | null) ?? null,
    createdAt: row.createdAt as string,
  };
}

/** Session ids per override query: D1's 100 bound parameters, less the two other conditions. */
const OVERRIDE_IDS_PER_QUERY = 90;

/**
 * The owners' overrides of required approvals behind these AI applies (the session's audit log,
 * `ai.approvals.overridden`, names the change set it let through), put on the entries they applied.
 */
async function withOverrides(db: Db, projectId: string, entries: HistoryEntryView[]): Promise<HistoryEntryView[]> {
  const sessionIds = [...new Set(entries.flatMap((e) => (e.action === 'ai_apply' && e.sessionId ? [e.sessionId] : [])))];
  if (sessionIds.length === 0) return entries;
  // D1 binds at most 100 parameters a statement; a page of 200 entries may name more sessions.
  const chunks: string[][] = [];
  for (let i = 0; i < sessionIds.length; i += OVERRIDE_IDS_PER_QUERY) chunks.push(sessionIds.slice(i, i + OVERRIDE_IDS_PER_QUERY));
  const read = (ids: string[]) =>
    db
      .select({ payloadJson: aiAuditEvents.payloadJson, by: users.name, createdAt: aiAuditEvents.createdAt })
      .from(aiAuditEvents)
      .leftJoin(users, eq(users.id, aiAuditEvents.userId))
      .where(and(eq(aiAuditEvents.projectId, projectId), eq(aiAuditEvents.eventType, 'ai.approvals.overridden'), inArray(aiAuditEvents.sessionId, ids)));
  const rows = (await Promise.all(chunks.map(read))).flat().sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  const byChangeSet = new Map<string, { by: string | null; reason: string }>();
  for (const row of rows) {
    try {
      const payload = JSON.parse(row.payloadJson) as { changeSetId?: unknown; reason?: unknown };
      if (typeof payload.changeSetId === 'string') byChangeSet.set(payload.changeSetId, { by: row.by ?? null, reason: typeof payload.reason === 'string' ? payload.reason : '' });
    } catch {
      // an unreadable audit row says nothing
    }
  }
  return entries.map((e) => (e.action === 'ai_apply' && e.changeSetId && byChangeSet.has(e.changeSetId) ? { ...e, override: byChangeSet.get(e.changeSetId)! } : e));
}

export interface HistoryQuery {
  objectKey?: string | undefined;
  limit: number;
  /** Cursor from a previous page: `<createdAt>|<id>`. */
  before?: string | undefined;
}

export async function listHistory(db: Db, projectId: string, query: HistoryQuery) {
  const conditions: SQL[] = [eq(revisionHistory.projectId, projectId)];
  if (query.objectKey) conditions.push(eq(revisionHistory.objectKey, query.objectKey));
  if (query.before) {
    const [createdAt, id] = query.before.split('|');
    if (createdAt && id) {
      conditions.push(
        or(
          lt(revisionHistory.createdAt, createdAt),
          and(eq(revisionHistory.createdAt, createdAt), lt(revisionHistory.id, id)),
        )!,
      );
    }
  }
  const rows = await db
    .select(columns)
    .from(revisionHistory)
    .leftJoin(users, eq(users.id, revisionHistory.actorId))
    .where(and(...conditions))
    .orderBy(desc(revisionHistory.createdAt), desc(revisionHistory.id))
    .limit(query.limit + 1);
  const page = await withOverrides(db, projectId, rows.slice(0, query.limit).map(toView));
  const last = page.at(-1);
  return { entries: page, nextCursor: rows.length > query.limit && last ? `${last.createdAt}|${last.id}` : null };
}

export async function loadEntry(db: Db, projectId: string, historyId: string) {
  const row = await db
    .select({ ...columns, contentBefore: revisionHistory.contentBefore, contentAfter: revisionHistory.contentAfter, metaJson: revisionHistory.metaJson, writeId: revisionHistory.writeId })
    .from(revisionHistory)
    .leftJoin(users, eq(users.id, revisionHistory.actorId))
    .where(and(eq(revisionHistory.projectId, projectId), eq(revisionHistory.id, historyId)))
    .get();
  if (!row) throw new ApiError('HISTORY_NOT_FOUND');
  return row;
}

export type EntryRow = Awaited<ReturnType<typeof loadEntry>>;

/** The revisions (oldest first) of the writes to the same object after this entry. */
export async function laterRevisions(db: Db, projectId: string, entry: Pick<EntryRow, 'id' | 'objectKey' | 'createdAt' | 'newRevision'>): Promise<number[]> {
  const createdAt = entry.createdAt as string;
  const rows = await db
    .select({ newRevision: revisionHistory.newRevision, createdAt: revisionHistory.createdAt })
    .from(revisionHistory)
    .where(
      and(
        eq(revisionHistory.projectId, projectId),
        eq(revisionHistory.objectKey, entry.objectKey as string),
        ne(revisionHistory.id, entry.id as string),
        or(
          gt(revisionHistory.createdAt, createdAt),
          // Two writes in the same millisecond: the later one starts from this one's revision or above.
          and(eq(revisionHistory.createdAt, createdAt), gt(revisionHistory.oldRevision, (entry.newRevision as number) - 1)),
        ),
      ),
    );
  return rows
    .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.newRevision - b.newRevision))
    .map((r) => r.newRevision);
}

export async function getHistoryEntry(db: Db, projectId: string, historyId: string): Promise<HistoryEntryDetailView> {
  const row = await loadEntry(db, projectId, historyId);
  const scope = scopeOfKey(row.objectKey);
  const [[view], later, scopeRevision] = await Promise.all([
    withOverrides(db, projectId, [toView(row)]),
    laterRevisions(db, projectId, row),
    scope ? readRevision(db, projectId, scope) : Promise.resolve(undefined),
  ]);
  return { ...view!, contentBefore: row.contentBefore, contentAfter: row.contentAfter, laterRevisions: later, scopeRevision: scopeRevision ?? null };
}

/** The revision scope an object's writes move: its workflow's, the agents' or the assets'. */
function scopeOfKey(objectKey: string): RevisionScope | undefined {
  const key = parseObjectKey(objectKey);
  if (!key) return undefined;
  if (key.kind === 'agent') return { kind: 'agents' };
  if (key.kind === 'asset') return { kind: 'assets' };
  return 'workflowId' in key ? { kind: 'workflow', workflowId: key.workflowId } : undefined;
}

export function meta(row: { metaJson: string | null }): Record<string, unknown> {
  try {
    return row.metaJson ? (JSON.parse(row.metaJson) as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export const notRevertible = (why: string) =>
  new ApiError('CONFLICT', { message: `This change cannot be reverted: ${why}.` });

/** Bring back a whole deleted workflow from the rows its deletion wrote. */
export async function restoreWorkflow(db: Db, ctx: CommitContext, writeId: string, workflowId: string): Promise<number> {
  if ((await readRevision(db, ctx.projectId, { kind: 'workflow', workflowId })) !== undefined) {
    throw notRevertible(`a workflow "${workflowId}" exists again`);
  }
  const rows = await db
    .select({ objectKey: revisionHistory.objectKey, contentBefore: revisionHistory.contentBefore, metaJson: revisionHistory.metaJson })
    .from(revisionHistory)
    .where(and(eq(revisionHistory.projectId, ctx.projectId), eq(revisionHistory.writeId, writeId)))
    .orderBy(revisionHistory.objectKey);
  let workflowMd: string | null = null;
  let graphJson: string | null = null;
  let name = workflowId;
  const steps: Array<{ nodeId: string; path: string; markdown: string }> = [];
  for (const row of rows) {
    const key = parseObjectKey(row.objectKey);
    if (!key || !('workflowId' in key) || key.workflowId !== workflowId || row.contentBefore === null) continue;
    if (key.kind === 'workflow') {
      workflowMd = row.contentBefore;
      name = typeof meta(row).name === 'string' ? (meta(row).name as string) : workflowId;
    } else if (key.kind === 'graph') graphJson = row.contentBefore;
    else if (key.kind === 'step') {
      steps.push({ nodeId: key.nodeId, path: String(meta(row).path ?? ''), markdown: row.contentBefore });
    }
  }
  if (workflowMd === null || graphJson === null) throw notRevertible('the deleted workflow was not recorded whole');
  const writes: ObjectWrite[] = [
    { objectKey: `workflow:${workflowId}`, action: 'revert', contentBefore: null, contentAfter: workflowMd, meta: { name } },
    { objectKey: `graph:${workflowId}`, action: 'revert', contentBefore: null, contentAfter: graphJson },
    ...steps.map((s) => ({
      objectKey: `step:${workflowId}/${s.nodeId}`,
      action: 'revert' as const,
      contentBefore: null,
      contentAfter: s.markdown,
      meta: { path: s.path },
    })),
  ];
  await commitChanges(db, ctx, [
    {
      scope: { kind: 'workflow', workflowId },
      expectedRevision: 0,
      bump: false,
      writes,
      statements: [
        // A workflow brought back goes after the others, like a new one.
        db.insert(workflows).values({ projectId: ctx.projectId, id: workflowId, name, workflowMd, graphJson, revision: 1, position: nextWorkflowPosition(ctx.projectId) }),
        ...steps.map((s) => db.insert(workflowSteps).values({ projectId: ctx.projectId, workflowId, ...s })),
      ],
    },
  ]);
  return 1;
}
