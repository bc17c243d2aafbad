/**
 * The file writes of an apply as a few statements instead of one per file: the assets and the
 * steps of a scope upserted (or deleted) with `json_each` over one JSON parameter per chunk
 * (worker/store/json-rows.ts). A row too large for a chunk gets the plain one-row statement.
 * The semantics are those of the one-row statements: insert, or on the key update every column.
 */
import type { Db } from '../../../worker/db/client.ts';
import { workflowSteps } from '../../../worker/db/schema.ts';
import type { Statement } from '../../../worker/store/commit.ts';
import { assetRow, upsertAssetStatement } from '../../../worker/store/assets.ts';
import { jsonColumns, packRows, rawStatement } from '../../../worker/store/json-rows.ts';

export type AssetRow = Awaited<ReturnType<typeof assetRow>>;

export interface StepRow {
  nodeId: string;
  path: string;
  markdown: string;
}

// The SQL text of each shape, built once. `WHERE true`: SQLite reads `ON CONFLICT` after a bare
// `FROM json_each(?)` as a join's ON. Measured in workerd (100 files, alternating rounds): this
// shape and multi-row VALUES lists (within D1's 100 bound parameters) cost the same, one plain
// statement per row about twice as much, so the JSON parameter stays.
const [c0, c1, c2, c3] = jsonColumns(4);
const UPSERT_ASSETS = `INSERT INTO assets (project_id, path, content, bytes, sha256, updated_at)
  SELECT ?, ${c0}, ${c1}, ${c2}, ${c3}, ? FROM json_each(?) WHERE true
  ON CONFLICT (project_id, path) DO UPDATE SET content = excluded.content, bytes = excluded.bytes,
    sha256 = excluded.sha256, updated_at = excluded.updated_at`;
const DELETE_ASSETS = `DELETE FROM assets WHERE project_id = ? AND path IN (SELECT ${c0} FROM json_each(?))`;
const UPSERT_STEPS = `INSERT INTO workflow_steps (project_id, workflow_id, node_id, path, markdown, updated_at)
  SELECT ?, ?, ${c0}, ${c1}, ${c2}, ? FROM json_each(?) WHERE true
  ON CONFLICT (project_id, workflow_id, node_id) DO UPDATE SET path = excluded.path, markdown = excluded.markdown,
    updated_at = excluded.updated_at`;
const DELETE_STEPS = `DELETE FROM workflow_steps WHERE project_id = ? AND workflow_id = ?
  AND node_id IN (SELECT ${c0} FROM json_each(?))`;

/** Every asset row inserted or updated in place (the primary key is project + path). */
export function upsertAssets(db: Db, projectId: string, rows: readonly AssetRow[], now: string): Statement[] {
  const { chunks, oversize } = packRows(rows, (r) => [r.path, r.content, r.bytes, r.sha256]);
  const statements: Statement[] = chunks.map((chunk) => rawStatement(UPSERT_ASSETS, [projectId, now, chunk]));
  for (const row of oversize) statements.push(upsertAssetStatement(db, { ...row, updatedAt: now }));
  return statements;
}

/** The assets at `paths` removed (paths are short: never over a chunk). */
export function deleteAssets(projectId: string, paths: readonly string[]): Statement[] {
  return packRows(paths, (p) => [p]).chunks.map((chunk) => rawStatement(DELETE_ASSETS, [projectId, chunk]));
}

/** Every step row of one workflow inserted or updated in place (the key is project + workflow + node). */
export function upsertSteps(db: Db, projectId: string, workflowId: string, rows: readonly StepRow[], now: string): Statement[] {
  const { chunks, oversize } = packRows(rows, (r) => [r.nodeId, r.path, r.markdown]);
  const statements: Statement[] = chunks.map((chunk) => rawStatement(UPSERT_STEPS, [projectId, workflowId, now, chunk]));
  for (const row of oversize) {
    statements.push(
      db
        .insert(workflowSteps)
        .values({ projectId, workflowId, nodeId: row.nodeId, path: row.path, markdown: row.markdown, updatedAt: now })
        .onConflictDoUpdate({
          target: [workflowSteps.projectId, workflowSteps.workflowId, workflowSteps.nodeId],
          set: { path: row.path, markdown: row.markdown, updatedAt: now },
        }),
    );
  }
  return statements;
}

/** The steps of one workflow with these node ids removed. */
export function deleteSteps(projectId: string, workflowId: string, nodeIds: readonly string[]): Statement[] {
  return packRows(nodeIds, (id) => [id]).chunks.map((chunk) => rawStatement(DELETE_STEPS, [projectId, workflowId, chunk]));
}
