/**
 * The canvas's write: a new workflow.graph.json together with the step files created or deleted
 * with its nodes and the step files whose `transitions` follow its edges (derived here again from
 * the graph, whatever the client sent). Refused with every reason when it would break the graph
 * (shared rules) or add validation errors to the workflow; otherwise committed as ONE workflow
 * revision through the store's commit path.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { assets, projects, workflowSteps, workflows } from '../db/schema.ts';
import { ApiError } from '../../shared/api-error.ts';
import type { ErrorDetail } from '../../shared/errors.ts';
import { nowIso } from '../../shared/ids.ts';
import { commitChanges, expectRevision, type CommitContext, type ObjectWrite, type Statement } from './commit.ts';
import { getWorkflow } from './workflows.ts';
import { formatObjectKey } from '../../shared/object-keys.ts';
import { graphEditProblems } from '../../shared/bmad/graph-edit-rules.ts';
import { planStepFiles, type StepFilesPlan } from '../../shared/bmad/graph-edit-steps.ts';
import { toErrorDetail } from '../../shared/bmad/issues.ts';
import { newErrors, workflowIssues, type WorkflowFiles } from '../../shared/bmad/workflow-edit-check.ts';
import { packageFilePath } from '../package-io/validate-stored.ts';
import type { GraphEditInput } from '../../shared/api/graph-edit.ts';

type Workflow = Awaited<ReturnType<typeof getWorkflow>>;

/** Agent ids of the project's agents.json, or undefined when it cannot be read (agents then go unchecked). */
function agentIdsOf(agentsJson: string): string[] | undefined {
  try {
    const agents = (JSON.parse(agentsJson) as { agents?: unknown }).agents;
    if (!Array.isArray(agents)) return undefined;
    return agents.map((a: { id?: unknown }) => a?.id).filter((id): id is string => typeof id === 'string');
  } catch {
    return undefined;
  }
}

/** The workflow's validation errors the edit would add; problems it already had do not count. */
async function addedValidationErrors(
  db: Db,
  projectId: string,
  workflow: Workflow,
  graph: string,
  plan: StepFilesPlan,
  createPaths: readonly string[],
  deleteSteps: readonly string[],
): Promise<ErrorDetail[]> {
  const [project, assetRows] = await Promise.all([
    db.select({ agentsJson: projects.agentsJson }).from(projects).where(eq(projects.id, projectId)).get(),
    db.select({ path: assets.path }).from(assets).where(eq(assets.projectId, projectId)),
  ]);
  const agentIds = project ? agentIdsOf(project.agentsJson) : undefined;
  const shared: Omit<WorkflowFiles, 'graphJson' | 'steps'> = {
    graphPath: packageFilePath.graph(workflow.id),
    workflowMdPath: packageFilePath.workflowMd(workflow.id),
    ...(agentIds ? { agentIds } : {}),
    assetPaths: assetRows.map((a) => a.path),
  };
  const updated = new Map(plan.updates.map((u) => [u.nodeId, u.markdown]));
  const stepsAfter = [
    ...workflow.steps.filter((s) => !deleteSteps.includes(s.nodeId)).map((s) => ({ path: s.path, markdown: updated.get(s.nodeId) ?? s.markdown })),
    ...plan.creates.map((s, i) => ({ path: createPaths[i]!, markdown: s.markdown })),
  ];
  const before = workflowIssues({ ...shared, graphJson: workflow.graphJson, steps: workflow.steps });
  const after = workflowIssues({ ...shared, graphJson: graph, steps: stepsAfter });
  return newErrors(before, after).map(toErrorDetail);
}

export async function applyGraphEdit(
  db: Db,
  ctx: CommitContext,
  workflowId: string,
  input: Required<Pick<GraphEditInput, 'graph' | 'createSteps' | 'updateSteps' | 'deleteSteps'>> & { baseRevision?: number | undefined },
): Promise<number> {
  const workflow = await getWorkflow(db, ctx.projectId, workflowId);
  const expected = expectRevision(workflow.revision, input.baseRevision);
  const problems: ErrorDetail[] = graphEditProblems({
    before: workflow.graphJson,
    after: input.graph,
    storedSteps: workflow.steps,
    createSteps: input.createSteps.map((s) => s.nodeId),
    deleteSteps: input.deleteSteps,
  }).map(({ message, pointer }) => (pointer === undefined ? { message } : { message, pointer }));
  // Paths are unique per project, so a new step may not take a file of another workflow either.
  const nodes = problems.length === 0 ? (JSON.parse(input.graph) as { nodes: Array<{ id: string; file: string }> }).nodes : [];
  const fileOf = new Map(nodes.map((n) => [n.id, n.file]));
  const newPaths = input.createSteps.map((s) => fileOf.get(s.nodeId) ?? '');
  if (newPaths.length > 0 && problems.length === 0) {
    const taken = await db
      .select({ path: workflowSteps.path, workflowId: workflowSteps.workflowId })
      .from(workflowSteps)
      .where(and(eq(workflowSteps.projectId, ctx.projectId), inArray(workflowSteps.path, newPaths)));
    for (const row of taken.filter((r) => r.workflowId !== workflowId)) {
      problems.push({ message: `The file ${row.path} already belongs to workflow “${row.workflowId}”.` });
    }
  }
  const plan = planStepFiles({
    before: workflow.graphJson,
    after: input.graph,
    stored: workflow.steps,
    createSteps: input.createSteps,
    updateSteps: input.updateSteps,
    deleteSteps: input.deleteSteps,
  });
  problems.push(...plan.problems.map((message) => ({ message })));
  // The package rules run only over an edit that is well formed; they need its graph and files.
  if (problems.length === 0) {
    problems.push(...(await addedValidationErrors(db, ctx.projectId, workflow, input.graph, plan, newPaths, input.deleteSteps)));
  }
  if (problems.length > 0) {
    throw new ApiError('GRAPH_EDIT_REFUSED', {
      message: problems.length === 1 ? problems[0]!.message : `This change would break the workflow in ${problems.length} ways.`,
      details: problems,
    });
  }

  const now = nowIso();
  const writes: ObjectWrite[] = [
    { objectKey: formatObjectKey({ kind: 'graph', workflowId }), action: 'update', contentBefore: workflow.graphJson, contentAfter: input.graph },
  ];
  const statements: Statement[] = [
    db
      .update(workflows)
      .set({ graphJson: input.graph })
      .where(and(eq(workflows.projectId, ctx.projectId), eq(workflows.id, workflowId))),
  ];
  for (const nodeId of input.deleteSteps) {
    const step = workflow.steps.find((s) => s.nodeId === nodeId)!;
    writes.push({
      objectKey: formatObjectKey({ kind: 'step', workflowId, nodeId }),
      action: 'delete',
      contentBefore: step.markdown,
      contentAfter: null,
      meta: { path: step.path },
    });
    statements.push(
      db
        .delete(workflowSteps)
        .where(and(eq(workflowSteps.projectId, ctx.projectId), eq(workflowSteps.workflowId, workflowId), eq(workflowSteps.nodeId, nodeId))),
    );
  }
  for (const step of plan.updates) {
    writes.push({
      objectKey: formatObjectKey({ kind: 'step', workflowId, nodeId: step.nodeId }),
      action: 'update',
      contentBefore: step.before,
      contentAfter: step.markdown,
      meta: { path: step.path },
    });
    statements.push(
      db
        .update(workflowSteps)
        .set({ markdown: step.markdown, updatedAt: now })
        .where(and(eq(workflowSteps.projectId, ctx.projectId), eq(workflowSteps.workflowId, workflowId), eq(workflowSteps.nodeId, step.nodeId))),
    );
  }
  plan.creates.forEach((step, i) => {
    const path = newPaths[i]!;
    writes.push({
      objectKey: formatObjectKey({ kind: 'step', workflowId, nodeId: step.nodeId }),
      action: 'create',
      contentBefore: null,
      contentAfter: step.markdown,
      meta: { path },
    });
    statements.push(
      db.insert(workflowSteps).values({ projectId: ctx.projectId, workflowId, nodeId: step.nodeId, path, markdown: step.markdown, updatedAt: now }),
    );
  });
  const [revision] = (await commitChanges(db, ctx, [{ scope: { kind: 'workflow', workflowId }, expectedRevision: expected, writes, statements }]))
    .revisions;
  return revision!;
}
