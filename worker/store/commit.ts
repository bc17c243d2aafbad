/**
 * The one way the package store writes: a set of object writes grouped by revision scope,
 * committed in ONE D1 batch (D1's only transaction) together with their history rows and the
 * revision bumps. Each history row computes its `new_revision` from the scope's current
 * revision *only if it still equals the expected one*; otherwise the subquery yields NULL,
 * the NOT NULL column fails, and D1 rolls the whole batch back. An UPDATE that matches no row
 * would not abort anything, so the guard has to be a failing statement. The history rows of a
 * scope go in a few `INSERT … SELECT … FROM json_each(?)` statements (json-rows.ts), not one
 * statement per row: a 100-file write is a handful of statements.
 */
import { SQL, sql } from 'drizzle-orm';
import { SQLiteAsyncDialect } from 'drizzle-orm/sqlite-core';
import type { Db } from '../db/client.ts';
import { newId, nowIso } from '../../shared/ids.ts';
import { ApiError } from '../../shared/api-error.ts';
import type { HistoryAction } from '../../shared/api/store.ts';
import { isConstraintViolation } from '../../shared/errors-report.ts';
import { jsonColumns, packRows, rawStatement } from './json-rows.ts';

export type RevisionScope = { kind: 'workflow'; workflowId: string } | { kind: 'agents' } | { kind: 'assets' };

export interface ObjectWrite {
  objectKey: string;
  action: HistoryAction;
  contentBefore: string | null;
  contentAfter: string | null;
  meta?: Record<string, unknown>;
}

export interface ScopeChange {
  scope: RevisionScope;
  /** The revision the change was prepared against. */
  expectedRevision: number;
  writes: ObjectWrite[];
  /** The mutations themselves (drizzle queries or `sql` fragments), run after the guarded history rows. */
  statements: Statement[];
  /**
   * When the scope's own row is created or removed by `statements` (a new or deleted
   * workflow), the revision is not bumped afterwards.
   */
  bump?: boolean;
}

/** A drizzle query builder (anything with `toSQL()`) or a raw `sql` fragment. */
export type Statement = SQL | { toSQL(): { sql: string; params: unknown[] } };

const dialect = new SQLiteAsyncDialect();

/**
 * Build a D1 statement. The batch goes to D1 directly because drizzle's batch cannot carry raw
 * `sql` fragments, and the guarded history insert is one.
 */
function prepare(d1: D1Database, statement: Statement): D1PreparedStatement {
  const query = statement instanceof SQL ? dialect.sqlToQuery(statement) : statement.toSQL();
  return d1.prepare(query.sql).bind(...query.params);
}

/** Run statements as one D1 batch: one transaction, all or nothing; each statement's result (`meta.changes`) in order. */
export async function runBatch(db: Db, statements: Statement[]): Promise<D1Result[]> {
  if (statements.length === 0) return [];
  return db.$client.batch(statements.map((statement) => prepare(db.$client, statement)));
}

export interface CommitContext {
  projectId: string;
  actorId: string | null;
  sessionId?: string | null;
  changeSetId?: string | null;
}

export interface CommitResult {
  writeId: string;
  /** New revision per scope, in the order given. */
  revisions: number[];
}

function currentRevisionSql(projectId: string, scope: RevisionScope): SQL {
  switch (scope.kind) {
    case 'workflow':
      return sql`SELECT revision FROM workflows WHERE project_id = ${projectId} AND id = ${scope.workflowId}`;
    case 'agents':
      return sql`SELECT agents_revision FROM projects WHERE id = ${projectId}`;
    case 'assets':
      return sql`SELECT assets_revision FROM projects WHERE id = ${projectId}`;
    default: {
      const never: never = scope;
      throw new Error(`unknown scope ${String(never)}`);
    }
  }
}

function bumpSql(projectId: string, scope: RevisionScope, now: string): SQL {
  switch (scope.kind) {
    case 'workflow':
      return sql`UPDATE workflows SET revision = revision + 1, updated_at = ${now} WHERE project_id = ${projectId} AND id = ${scope.workflowId}`;
    case 'agents':
      return sql`UPDATE projects SET agents_revision = agents_revision + 1, updated_at = ${now} WHERE id = ${projectId}`;
    case 'assets':
      return sql`UPDATE projects SET assets_revision = assets_revision + 1, updated_at = ${now} WHERE id = ${projectId}`;
    default: {
      const never: never = scope;
      throw new Error(`unknown scope ${String(never)}`);
    }
  }
}

export async function readRevision(db: Db, projectId: string, scope: RevisionScope): Promise<number | undefined> {
  const row = await db.get<{ revision: number }>(
    sql`SELECT (${currentRevisionSql(projectId, scope)}) AS revision`,
  );
  return row?.revision ?? undefined;
}

/** The revision guard yields NULL for new_revision when the scope moved on; D1 reports the NOT NULL column (maybe as a cause). */
function isGuardFailure(error: unknown): boolean {
  return isConstraintViolation(error, 'NOT NULL', 'revision_history.new_revision');
}

const HISTORY_COLUMN_LIST =
  'id, project_id, object_key, action, old_revision, new_revision, content_before, content_after, meta_json, write_id, actor_id, session_id, change_set_id, created_at';
const HISTORY_COLUMNS = sql.raw(HISTORY_COLUMN_LIST);

/**
 * The history rows of one scope: a few `INSERT … SELECT … FROM json_each(?)` statements (each
 * row's id, key, action, content before and after and meta travel in one JSON parameter), and a
 * plain INSERT for a row too large for one. Every row carries the scope's guard.
 */
function historyStatements(context: CommitContext, change: ScopeChange, guard: SQL, writeId: string, now: string): Statement[] {
  const common = { projectId: context.projectId, actorId: context.actorId, sessionId: context.sessionId ?? null, changeSetId: context.changeSetId ?? null };
  const metaOf = (write: ObjectWrite) => (write.meta ? JSON.stringify(write.meta) : null);
  const { chunks, oversize } = packRows(change.writes, (w) => [newId('hist'), w.objectKey, w.action, w.contentBefore, w.contentAfter, metaOf(w)]);
  // The guard is the only part that differs by scope: its text joins the fixed text of the shape
  // (no drizzle walk of the whole statement per chunk), its parameters go in their place.
  const g = dialect.sqlToQuery(guard);
  const [id, key, action, before, after, meta] = jsonColumns(6);
  const text = `INSERT INTO revision_history (${HISTORY_COLUMN_LIST})
    SELECT ${id}, ?, ${key}, ${action}, ?, ${g.sql}, ${before}, ${after}, ${meta}, ?, ?, ?, ?, ? FROM json_each(?)`;
  const head = [common.projectId, change.expectedRevision, ...g.params];
  const tail = [writeId, common.actorId, common.sessionId, common.changeSetId, now];
  const statements: Statement[] = chunks.map((chunk) => rawStatement(text, [...head, ...tail, chunk]));
  for (const write of oversize) {
    statements.push(
      sql`INSERT INTO revision_history (${HISTORY_COLUMNS})
        VALUES (${newId('hist')}, ${common.projectId}, ${write.objectKey}, ${write.action}, ${change.expectedRevision},
          ${guard}, ${write.contentBefore}, ${write.contentAfter}, ${metaOf(write)},
          ${writeId}, ${common.actorId}, ${common.sessionId}, ${common.changeSetId}, ${now})`,
    );
  }
  return statements;
}

export async function commitChanges(db: Db, context: CommitContext, changes: ScopeChange[]): Promise<CommitResult> {
  const writeId = newId('hist');
  const now = nowIso();
  const batch: Statement[] = [];
  for (const change of changes) {
    // A scope whose row does not exist yet (a workflow being created) starts at revision 0.
    const guard =
      change.expectedRevision === 0
        ? sql`(SELECT CASE WHEN (${currentRevisionSql(context.projectId, change.scope)}) IS NULL THEN 1 END)`
        : sql`(SELECT CASE WHEN (${currentRevisionSql(context.projectId, change.scope)}) = ${change.expectedRevision} THEN ${change.expectedRevision + 1} END)`;
    batch.push(...historyStatements(context, change, guard, writeId, now));
    batch.push(...change.statements);
    if (change.bump !== false) batch.push(bumpSql(context.projectId, change.scope, now));
  }
  if (batch.length === 0) return { writeId, revisions: [] };
  try {
    await runBatch(db, batch);
  } catch (error) {
    if (isGuardFailure(error)) {
      const first = changes[0]!;
      const current = await readRevision(db, context.projectId, first.scope);
      throw new ApiError('REVISION_CONFLICT', {
        extra: { currentRevision: current ?? null },
        hints: ['Reload to see the latest version, then make your change again.'],
        cause: error,
      });
    }
    throw error;
  }
  return { writeId, revisions: changes.map((c) => c.expectedRevision + 1) };
}

/**
 * The revision a write is prepared against: the client's `baseRevision` when it sent one
 * (stale → 409 with the current revision), else the revision just read.
 */
export function expectRevision(current: number, baseRevision: number | undefined): number {
  if (baseRevision !== undefined && baseRevision !== current) {
    throw new ApiError('REVISION_CONFLICT', {
      extra: { currentRevision: current, providedRevision: baseRevision },
      hints: ['Reload to see the latest version, then make your change again.'],
    });
  }
  return current;
}
