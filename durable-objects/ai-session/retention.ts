/**
 * Old sessions (issue 19): an ended session (cancelled, or applied with no draft left and no turn
 * open) keeps its object's storage for a retention period after its last event (the
 * `AI_SESSION_RETENTION_DAYS` variable, 30 days unless set). Then what the read-only past session
 * shows — the view as it last was, a timeline summary, the conversation's summaries and the final
 * diff — is written to D1 (`ai_session_archives`), and only once D1 holds it is the storage
 * released. The Worker's past-session read falls back to that row.
 */
import { nowIso } from '../../shared/ids.ts';
import type { Db } from '../../worker/db/client.ts';
import { eq } from 'drizzle-orm';
import { aiSessionArchives, aiSessions } from '../../worker/db/schema.ts';
import { appliedFiles } from '../../worker/store/ai-session-list.ts';
import type { SessionCore } from './session.ts';
import type { AuditOutbox } from './loop/audit-outbox.ts';
import { logError } from '../../shared/errors-report.ts';

export const DEFAULT_RETENTION_DAYS = 30;
const DAY_MS = 86_400_000;
/** A release that could not archive (D1 down, audit rows still waiting) tries again this much later. */
const RELEASE_RETRY_MS = 3_600_000;
/** Events that may end a session: the retention clock is set when one is stored. */
export const ENDING_EVENTS: ReadonlySet<string> = new Set(['session.cancelled', 'change.applied']);

/** The retention period in ms from the variable (days); an unset or unusable value means the default. */
export function retentionMs(days: string | undefined): number {
  const value = Number(days);
  return (days !== undefined && days !== '' && Number.isFinite(value) && value >= 0 ? value : DEFAULT_RETENTION_DAYS) * DAY_MS;
}

/** Cancelled, or applied with nothing staged since and no turn open. */
function hasEnded(core: SessionCore): boolean {
  if (!core.meta) return false;
  if (core.status !== 'active') return true;
  return core.versions.latest()?.status === 'applied' && core.overlay.size === 0 && !core.turns.open();
}

/** When the session last moved (its newest event), ms since epoch. */
function lastActivity(core: SessionCore): number {
  const last = core.log.lastSeq();
  const event = core.log.after(last - 1, 1)[0];
  return event ? Date.parse(event.at) : 0;
}

export interface SessionArchive {
  view: unknown;
  timeline: { events: number; byType: Record<string, number>; firstAt: string | null; lastAt: string | null };
  conversation: Array<{ turnId: string | null; role: string; summary: string; at: string }>;
}

/**
 * Archive the session to D1 (idempotent: a retried release writes the same row again). A session
 * whose D1 row is gone (its project was deleted: an ended session is not told, see PROTOCOL.md) has
 * no list to appear in and nobody to show it to: nothing is archived, and its storage may go.
 */
async function archiveSession(core: SessionCore, db: Db, sql: SqlStorage): Promise<void> {
  const meta = core.meta!;
  const [listed] = await db.select({ id: aiSessions.id }).from(aiSessions).where(eq(aiSessions.id, meta.sessionId)).limit(1);
  if (!listed) return;
  const view = await core.state({ messagesLimit: 200 });
  const types = sql
    .exec<{ type: string; n: number; first: string; last: string }>('SELECT type, COUNT(*) AS n, MIN(at) AS first, MAX(at) AS last FROM events GROUP BY type')
    .toArray();
  const timeline: SessionArchive['timeline'] = {
    events: types.reduce((sum, t) => sum + t.n, 0),
    byType: Object.fromEntries(types.map((t) => [t.type, t.n])),
    firstAt: types.map((t) => t.first).sort()[0] ?? null,
    lastAt: types.map((t) => t.last).sort().at(-1) ?? null,
  };
  // The people's messages and each turn's final summary (the loop's own steps are not kept).
  const conversation = core.turns.conversation().map((m) => ({ turnId: m.turnId, role: m.role, summary: m.content, at: m.createdAt }));
  const finalDiff = await appliedFiles(db, meta.projectId, meta.sessionId);
  const row = {
    projectId: meta.projectId,
    viewJson: JSON.stringify(view),
    timelineJson: JSON.stringify(timeline),
    conversationJson: JSON.stringify(conversation),
    finalDiffJson: JSON.stringify(finalDiff),
    releasedAt: nowIso(),
  };
  await db
    .insert(aiSessionArchives)
    .values({ sessionId: meta.sessionId, ...row })
    .onConflictDoUpdate({ target: aiSessionArchives.sessionId, set: row });
}

export interface ReleaseTask {
  core: SessionCore;
  db: Db;
  sql: SqlStorage;
  audit: AuditOutbox;
  retentionMs: number;
  now: () => number;
  /** Run the release task again at `dueAt`. */
  schedule: (dueAt: number) => void;
}

/**
 * The release task: an ended session whose retention period is over is archived to D1, its audit
 * rows first (nothing may be lost). True once D1 holds both: the caller then drops the storage.
 * Not ended (a new draft after an apply) waits for the next ending event; not due yet, or D1 not
 * reachable, runs the task again later.
 */
export async function archiveWhenDue(task: ReleaseTask): Promise<boolean> {
  const { core } = task;
  if (!hasEnded(core)) return false;
  const due = lastActivity(core) + task.retentionMs;
  if (due > task.now()) {
    task.schedule(due);
    return false;
  }
  await task.audit.flush();
  try {
    if (task.audit.pending() > 0) throw new Error('audit rows still wait for D1');
    await archiveSession(core, task.db, task.sql);
  } catch (error) {
    logError('ai session: could not archive an ended session; its storage stays', error, { retryInMs: RELEASE_RETRY_MS });
    task.schedule(task.now() + RELEASE_RETRY_MS);
    return false;
  }
  return true;
}
