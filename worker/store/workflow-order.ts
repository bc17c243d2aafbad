/**
 * The order of a project's workflows (bmad.json `workflows[]`, the Builder's list, the AI's view):
 * the stored `position`, then created_at and id for rows that share one (two workflows created at
 * once). An import writes the manifest's order; every other new workflow (the Builder, the AI's
 * apply, a revert of a deletion) goes after the last one.
 */
import { asc, sql, type SQL } from 'drizzle-orm';
import { workflows } from '../db/schema.ts';

export const workflowOrder = [asc(workflows.position), asc(workflows.createdAt), asc(workflows.id)] as const;

/** The same order in raw SQL, for statements drizzle's builder cannot write. */
export const WORKFLOW_ORDER_SQL = sql.raw('position, created_at, id');

/**
 * The position of a workflow inserted now: one past the project's last, read inside the insert
 * itself, so several inserts in one batch each go after the one before.
 */
export function nextWorkflowPosition(projectId: string): SQL<number> {
  return sql<number>`(SELECT COALESCE(MAX(w.position) + 1, 0) FROM workflows w WHERE w.project_id = ${projectId})`;
}
