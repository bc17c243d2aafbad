/** Workflows of a project: workflow.md, graph and step files, under one workflow revision. */
import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { workflowSteps, workflows } from '../db/schema.ts';
import { ApiError } from '../../shared/api-error.ts';
import { nowIso } from '../../shared/ids.ts';
import { commitChanges, expectRevision, type CommitContext, type ObjectWrite, type Statement } from './commit.ts';
import { formatObjectKey } from '../../shared/object-keys.ts';
import { isSafeStepPath } from '../../shared/bmad/graph-edit-rules.ts';
import { defaultStepPath, newWorkflowSeed, stepsDir } from './templates.ts';
import { WORKFLOW_ORDER_SQL, nextWorkflowPosition, workflowOrder } from './workflow-order.ts';
import type { StepView, WorkflowSummaryView, WorkflowView } from '../../shared/api/store.ts';

type WorkflowRow = typeof workflows.$inferSelect;

export async function listWorkflows(db: Db, projectId: string): Promise<WorkflowSummaryView[]> {
  const rows = await db
    .select({
      id: workflows.id,
      name: workflows.name,
      isDefault: workflows.isDefault,
      revision: workflows.revision,
      updatedAt: workflows.updatedAt,
      // Written out with the outer table's name on purpose: in a single-table select drizzle drops
      // the table name of columns interpolated into `sql`, and a bare "project_id" inside this
      // subquery binds to workflow_steps itself, counting the same workflow id in every project.
      stepCount: sql<number>`(SELECT count(*) FROM workflow_steps s WHERE s.project_id = "workflows"."project_id" AND s.workflow_id = "workflows"."id")`,
    })
    .from(workflows)
    .where(eq(workflows.projectId, projectId))
    .orderBy(...workflowOrder);
  return rows;
}

async function loadWorkflow(db: Db, projectId: string, workflowId: string): Promise<WorkflowRow> {
  const row = await db
    .select()
    .from(workflows)
    .where(and(eq(workflows.projectId, projectId), eq(workflows.id, workflowId)))
    .get();
  if (!row) throw new ApiError('WORKFLOW_NOT_FOUND', { message: `There is no workflow "${workflowId}" in this project.` });
  return row;
}

async function loadSteps(db: Db, projectId: string, workflowId: string): Promise<StepView[]> {
  return db
    .select({ nodeId: workflowSteps.nodeId, path: workflowSteps.path, markdown: workflowSteps.markdown })
    .from(workflowSteps)
    .where(and(eq(workflowSteps.projectId, projectId), eq(workflowSteps.workflowId, workflowId)))
    .orderBy(asc(workflowSteps.path));
}

export async function getWorkflow(db: Db, projectId: string, workflowId: string): Promise<WorkflowView> {
  const row = await loadWorkflow(db, projectId, workflowId);
  const steps = await loadSteps(db, projectId, workflowId);
  return {
    id: row.id,
    name: row.name,
    isDefault: row.isDefault,
    revision: row.revision,
    updatedAt: row.updatedAt,
    stepCount: steps.length,
    workflowMd: row.workflowMd,
    graphJson: row.graphJson,
    steps,
  };
}

export async function createWorkflow(
  db: Db,
  ctx: CommitContext,
  input: { id: string; name: string },
): Promise<WorkflowView> {
  const [{ total } = { total: 0 }] = await db
    .select({ total: count() })
    .from(workflows)
    .where(eq(workflows.projectId, ctx.projectId));
  const existing = await db
    .select({ id: workflows.id })
    .from(workflows)
    .where(and(eq(workflows.projectId, ctx.projectId), eq(workflows.id, input.id)))
    .get();
  if (existing) throw new ApiError('WORKFLOW_EXISTS', { message: `A workflow with the id "${input.id}" already exists.` });
  const seed = newWorkflowSeed(input.id, input.name);
  const w = { kind: 'workflow', workflowId: input.id } as const;
  const writes: ObjectWrite[] = [
    { objectKey: formatObjectKey(w), action: 'create', contentBefore: null, contentAfter: seed.workflowMd },
    { objectKey: formatObjectKey({ ...w, kind: 'graph' }), action: 'create', contentBefore: null, contentAfter: seed.graphJson },
    ...seed.steps.map((s) => ({
      objectKey: formatObjectKey({ kind: 'step', workflowId: input.id, nodeId: s.nodeId }),
      action: 'create' as const,
      contentBefore: null,
      contentAfter: s.markdown,
      meta: { path: s.path },
    })),
  ];
  await commitChanges(db, ctx, [
    {
      scope: { kind: 'workflow', workflowId: input.id },
      expectedRevision: 0,
      bump: false,
      writes,
      statements: [
        db.insert(workflows).values({
          projectId: ctx.projectId,
          id: input.id,
          name: input.name,
          isDefault: total === 0,
          workflowMd: seed.workflowMd,
          graphJson: seed.graphJson,
          revision: 1,
          position: nextWorkflowPosition(ctx.projectId),
        }),
        ...seed.steps.map((s) =>
          db.insert(workflowSteps).values({ projectId: ctx.projectId, workflowId: input.id, ...s }),
        ),
      ],
    },
  ]);
  return getWorkflow(db, ctx.projectId, input.id);
}

export async function updateWorkflowMeta(
  db: Db,
  ctx: CommitContext,
  workflowId: string,
  input: { name?: string | undefined; isDefault?: true | undefined },
): Promise<WorkflowView> {
  const row = await loadWorkflow(db, ctx.projectId, workflowId);
  const now = nowIso();
  const writes: ObjectWrite[] = [];
  const statements: Statement[] = [];
  if (input.name !== undefined && input.name !== row.name) {
    writes.push({
      objectKey: formatObjectKey({ kind: 'workflow-name', workflowId }),
      action: 'update',
      contentBefore: row.name,
      contentAfter: input.name,
    });
    statements.push(
      db
        .update(workflows)
        .set({ name: input.name, updatedAt: now })
        .where(and(eq(workflows.projectId, ctx.projectId), eq(workflows.id, workflowId))),
    );
  }
  if (input.isDefault && !row.isDefault) {
    writes.push({
      objectKey: `workflow-default:${workflowId}`,
      action: 'update',
      contentBefore: 'false',
      contentAfter: 'true',
    });
    statements.push(
      db
        .update(workflows)
        .set({ isDefault: sql`(id = ${workflowId})` })
        .where(eq(workflows.projectId, ctx.projectId)),
    );
  }
  if (writes.length > 0) {
    await commitChanges(db, ctx, [
      { scope: { kind: 'workflow', workflowId }, expectedRevision: row.revision, writes, statements },
    ]);
  }
  return getWorkflow(db, ctx.projectId, workflowId);
}

export async function deleteWorkflow(db: Db, ctx: CommitContext, workflowId: string): Promise<void> {
  const row = await loadWorkflow(db, ctx.projectId, workflowId);
  const steps = await loadSteps(db, ctx.projectId, workflowId);
  // Every file of the workflow goes to history with its content, so a revert can bring it back.
  const writes: ObjectWrite[] = [
    {
      objectKey: formatObjectKey({ kind: 'workflow', workflowId }),
      action: 'delete',
      contentBefore: row.workflowMd,
      contentAfter: null,
      meta: { name: row.name, isDefault: row.isDefault },
    },
    { objectKey: formatObjectKey({ kind: 'graph', workflowId }), action: 'delete', contentBefore: row.graphJson, contentAfter: null },
    ...steps.map((s) => ({
      objectKey: formatObjectKey({ kind: 'step', workflowId, nodeId: s.nodeId }),
      action: 'delete' as const,
      contentBefore: s.markdown,
      contentAfter: null,
      meta: { path: s.path },
    })),
  ];
  const statements: Statement[] = [
    db.delete(workflows).where(and(eq(workflows.projectId, ctx.projectId), eq(workflows.id, workflowId))),
  ];
  if (row.isDefault) {
    // Hand the default flag to the first remaining workflow, if any.
    statements.push(
      sql`UPDATE workflows SET is_default = 1 WHERE project_id = ${ctx.projectId} AND id = (
        SELECT id FROM workflows WHERE project_id = ${ctx.projectId} ORDER BY ${WORKFLOW_ORDER_SQL} LIMIT 1)`,
    );
  }
  await commitChanges(db, ctx, [
    { scope: { kind: 'workflow', workflowId }, expectedRevision: row.revision, bump: false, writes, statements },
  ]);
}

export type WorkflowFile = 'workflow' | 'graph';

export async function putWorkflowFile(
  db: Db,
  ctx: CommitContext,
  workflowId: string,
  file: WorkflowFile,
  content: string,
  baseRevision: number | undefined,
  action?: 'revert',
  /** The workflow's row when the caller read it already (with who-is-asking): no read here. */
  current?: WorkflowRow,
): Promise<number> {
  const row = current ?? (await loadWorkflow(db, ctx.projectId, workflowId));
  const expected = expectRevision(row.revision, baseRevision);
  const before = file === 'workflow' ? row.workflowMd : row.graphJson;
  const [revision] = (
    await commitChanges(db, ctx, [
      {
        scope: { kind: 'workflow', workflowId },
        expectedRevision: expected,
        writes: [
          { objectKey: formatObjectKey({ kind: file, workflowId }), action: action ?? 'update', contentBefore: before, contentAfter: content },
        ],
        statements: [
          db
            .update(workflows)
            .set(file === 'workflow' ? { workflowMd: content } : { graphJson: content })
            .where(and(eq(workflows.projectId, ctx.projectId), eq(workflows.id, workflowId))),
        ],
      },
    ])
  ).revisions;
  return revision!;
}

export async function getStep(db: Db, projectId: string, workflowId: string, nodeId: string) {
  const workflow = await loadWorkflow(db, projectId, workflowId);
  const step = await db
    .select({ nodeId: workflowSteps.nodeId, path: workflowSteps.path, markdown: workflowSteps.markdown })
    .from(workflowSteps)
    .where(
      and(eq(workflowSteps.projectId, projectId), eq(workflowSteps.workflowId, workflowId), eq(workflowSteps.nodeId, nodeId)),
    )
    .get();
  if (!step) throw new ApiError('STEP_NOT_FOUND', { message: `There is no step "${nodeId}" in workflow "${workflowId}".` });
  return { step, revision: workflow.revision };
}

/** What a step save checks before it writes: the workflow's revision, the step now, who owns the paths it may write to. */
export interface StepFacts {
  revision: number;
  existing: { path: string; markdown: string } | null;
  /** The owners of input.path, or (a save that names none) of the files in the workflow's steps folder, by path. */
  owners: ReadonlyMap<string, { workflowId: string; nodeId: string }>;
}

/** The path a save writes to: the one given, the step's own, or the default (numbered past the paths `taken` names). */
export function stepPathFor(workflowId: string, nodeId: string, input: { path?: string | undefined }, existing: { path: string } | null, taken?: (path: string) => boolean): string {
  return input.path ?? existing?.path ?? defaultStepPath(workflowId, nodeId, taken);
}

/** The facts of a step save in one round trip (three reads in one batch). */
async function readStepFacts(db: Db, projectId: string, workflowId: string, nodeId: string, input: { path?: string | undefined }): Promise<StepFacts> {
  const folder = `${stepsDir(workflowId)}/`;
  const [workflowRows, existingRows, ownerRows] = await db.batch([
    db.select({ revision: workflows.revision }).from(workflows).where(and(eq(workflows.projectId, projectId), eq(workflows.id, workflowId))),
    db
      .select({ path: workflowSteps.path, markdown: workflowSteps.markdown })
      .from(workflowSteps)
      .where(and(eq(workflowSteps.projectId, projectId), eq(workflowSteps.workflowId, workflowId), eq(workflowSteps.nodeId, nodeId))),
    db
      .select({ path: workflowSteps.path, workflowId: workflowSteps.workflowId, nodeId: workflowSteps.nodeId })
      .from(workflowSteps)
      .where(and(eq(workflowSteps.projectId, projectId), input.path === undefined ? sql`substr(${workflowSteps.path}, 1, ${folder.length}) = ${folder}` : eq(workflowSteps.path, input.path))),
  ]);
  const workflow = workflowRows[0];
  if (!workflow) throw new ApiError('WORKFLOW_NOT_FOUND', { message: `There is no workflow "${workflowId}" in this project.` });
  return { revision: workflow.revision, existing: existingRows[0] ?? null, owners: new Map(ownerRows.map(({ path, ...owner }) => [path, owner])) };
}

export async function putStep(
  db: Db,
  ctx: CommitContext,
  workflowId: string,
  nodeId: string,
  input: { markdown: string; path?: string | undefined; baseRevision?: number | undefined },
  action?: 'revert',
): Promise<number> {
  const facts = await readStepFacts(db, ctx.projectId, workflowId, nodeId, input);
  return (await commitStep(db, ctx, workflowId, nodeId, input, facts, action)).revision;
}

/**
 * Write a step from facts read before (readStepFacts, or a caller's own batch): one round trip,
 * the commit batch, whose revision guard refuses the write if the workflow changed since.
 */
export async function commitStep(
  db: Db,
  ctx: CommitContext,
  workflowId: string,
  nodeId: string,
  input: { markdown: string; path?: string | undefined; baseRevision?: number | undefined },
  facts: StepFacts,
  action?: 'revert',
): Promise<{ revision: number; path: string }> {
  const { existing, owners } = facts;
  const expected = expectRevision(facts.revision, input.baseRevision);
  const path = stepPathFor(workflowId, nodeId, input, existing, (p) => owners.has(p));
  const pathOwner = owners.get(path);
  // A step keeps the file it has (an import keeps uploaded names, ":" too). Another path is plain
  // ASCII after the workflow's own folder, which is named after its id (ids may hold ":"; stored-package.ts).
  const own = `${stepsDir(workflowId)}/`;
  const rest = path.startsWith(own) ? `steps/${path.slice(own.length)}` : path;
  if (path !== existing?.path && !isSafeStepPath(rest)) {
    throw new ApiError('VALIDATION_FAILED', {
      message: `The step path "${path}" is not allowed.`,
      hints: ['Use a relative path such as workflows/<workflow>/steps/<node>.md, with letters, digits, . _ - and /.'],
    });
  }
  // A step keeping its own path owns it; any other path was looked up with the facts.
  if (path !== existing?.path && pathOwner && (pathOwner.workflowId !== workflowId || pathOwner.nodeId !== nodeId)) {
    throw new ApiError('CONFLICT', { message: `The file ${path} already belongs to step "${pathOwner.nodeId}".` });
  }
  const now = nowIso();
  const [revision] = (
    await commitChanges(db, ctx, [
      {
        scope: { kind: 'workflow', workflowId },
        expectedRevision: expected,
        writes: [
          {
            objectKey: formatObjectKey({ kind: 'step', workflowId, nodeId }),
            action: action ?? (existing ? 'update' : 'create'),
            contentBefore: existing?.markdown ?? null,
            contentAfter: input.markdown,
            meta: { path, ...(existing && existing.path !== path ? { previousPath: existing.path } : {}) },
          },
        ],
        statements: [
          db
            .insert(workflowSteps)
            .values({ projectId: ctx.projectId, workflowId, nodeId, path, markdown: input.markdown, updatedAt: now })
            .onConflictDoUpdate({
              target: [workflowSteps.projectId, workflowSteps.workflowId, workflowSteps.nodeId],
              set: { path, markdown: input.markdown, updatedAt: now },
            }),
        ],
      },
    ])
  ).revisions;
  return { revision: revision!, path };
}

export async function deleteStep(
  db: Db,
  ctx: CommitContext,
  workflowId: string,
  nodeId: string,
  baseRevision: number | undefined,
  action?: 'revert',
): Promise<number> {
  const { step, revision: current } = await getStep(db, ctx.projectId, workflowId, nodeId);
  const expected = expectRevision(current, baseRevision);
  const [revision] = (
    await commitChanges(db, ctx, [
      {
        scope: { kind: 'workflow', workflowId },
        expectedRevision: expected,
        writes: [
          {
            objectKey: formatObjectKey({ kind: 'step', workflowId, nodeId }),
            action: action ?? 'delete',
            contentBefore: step.markdown,
            contentAfter: null,
            meta: { path: step.path },
          },
        ],
        statements: [
          db
            .delete(workflowSteps)
            .where(
              and(
                eq(workflowSteps.projectId, ctx.projectId),
                eq(workflowSteps.workflowId, workflowId),
                eq(workflowSteps.nodeId, nodeId),
              ),
            ),
        ],
      },
    ])
  ).revisions;
  return revision!;
}
