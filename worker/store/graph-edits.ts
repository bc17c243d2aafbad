/**
 * The canvas's write: a new workflow.graph.json together with the step files created or deleted
 * with its nodes, refused with every reason when it would break the graph (shared rules), and
 * otherwise committed as ONE workflow revision through the store's commit path.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { workflowSteps, workflows } from '../db/schema.ts';
import { ApiError } from '../../shared/api-error.ts';
import { nowIso } from '../../shared/ids.ts';
import { commitChanges, expectRevision, type CommitContext, type ObjectWrite, type Statement } from './commit.ts';
import { getWorkflow } from './workflows.ts';
import { formatObjectKey } from '../../shared/object-keys.ts';
import { graphEditProblems } from '../../shared/bmad/graph-edit-rules.ts';
import type { GraphEditInput } from '../../shared/api/graph-edit.ts';

export async function applyGraphEdit(
  db: Db,
  ctx: CommitContext,
  workflowId: string,
  input: Required<Pick<GraphEditInput, 'graph' | 'createSteps' | 'deleteSteps'>> & { baseRevision?: number | undefined },
): Promise<number> {
  const workflow = await getWorkflow(db, ctx.projectId, workflowId);
  const expected = expectRevision(workflow.revision, input.baseRevision);
  const problems = graphEditProblems({
    before: workflow.graphJson,
    after: input.graph,
    storedSteps: workflow.steps,
    createSteps: input.createSteps.map((s) => s.nodeId),
    deleteSteps: input.deleteSteps,
  });
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
  if (problems.length > 0) {
    throw new ApiError('GRAPH_EDIT_REFUSED', {
      message: problems.length === 1 ? problems[0]!.message : `This change would break the graph in ${problems.length} ways.`,
      details: problems.map((p) => ({ message: p.message, ...(p.pointer ? { pointer: p.pointer } : {}) })),
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
  input.createSteps.forEach((step, i) => {
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
