/**
 * The D1 side of AI sessions for the session routes: whether a session belongs to a project, the
 * existence checks behind a session's target, the session row with its `ai.session.created` audit
 * event (one batch). The project's session list is ai-session-list.ts. The session's own state lives in its object.
 */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { aiAuditEvents, aiSessions, assets, projects, workflowSteps, workflows } from '../db/schema.ts';
import { newId } from '../../shared/ids.ts';
import type { SessionMode, TargetType } from '../../shared/ai/session.ts';
import { parseAgentsDocument } from './agents.ts';

export async function sessionInProject(db: Db, projectId: string, sessionId: string): Promise<boolean> {
  const row = await db
    .select({ id: aiSessions.id })
    .from(aiSessions)
    .where(and(eq(aiSessions.id, sessionId), eq(aiSessions.projectId, projectId)))
    .get();
  return row !== undefined;
}

export async function workflowExists(db: Db, projectId: string, workflowId: string): Promise<boolean> {
  return (await db.select({ id: workflows.id }).from(workflows).where(and(eq(workflows.projectId, projectId), eq(workflows.id, workflowId))).get()) !== undefined;
}

/** A step target's workflow and step, in one round trip (the step is looked up only when named). */
export async function stepTargetExists(db: Db, projectId: string, workflowId: string, nodeId: string | null): Promise<{ workflow: boolean; step: boolean }> {
  const [workflowRows, stepRows] = await db.batch([
    db.select({ id: workflows.id }).from(workflows).where(and(eq(workflows.projectId, projectId), eq(workflows.id, workflowId))),
    db
      .select({ nodeId: workflowSteps.nodeId })
      .from(workflowSteps)
      .where(and(eq(workflowSteps.projectId, projectId), eq(workflowSteps.workflowId, workflowId), eq(workflowSteps.nodeId, nodeId ?? ''))),
  ]);
  return { workflow: workflowRows.length > 0, step: nodeId !== null && stepRows.length > 0 };
}

export async function agentExists(db: Db, projectId: string, agentId: string): Promise<boolean> {
  const project = await db.select({ agentsJson: projects.agentsJson }).from(projects).where(eq(projects.id, projectId)).get();
  return parseAgentsDocument(project?.agentsJson ?? '').agents.some((a) => a.id === agentId);
}

export async function assetExists(db: Db, projectId: string, path: string): Promise<boolean> {
  return (await db.select({ path: assets.path }).from(assets).where(and(eq(assets.projectId, projectId), eq(assets.path, path))).get()) !== undefined;
}

export interface NewSessionRow {
  sessionId: string;
  projectId: string;
  userId: string;
  target: { workflowId: string | null; targetType: TargetType; targetId: string | null; mode: SessionMode };
  contextEnvelope: unknown;
  createdAt: string;
}

/** The session row and its `ai.session.created` audit event, in one batch. */
export async function insertSession(db: Db, row: NewSessionRow): Promise<void> {
  const { sessionId, projectId, userId, target, createdAt } = row;
  await db.batch([
    db.insert(aiSessions).values({
      id: sessionId,
      projectId,
      workflowId: target.workflowId,
      userId,
      targetType: target.targetType,
      targetId: target.targetId,
      mode: target.mode,
      status: 'active',
      contextEnvelopeJson: JSON.stringify(row.contextEnvelope),
      createdAt,
      updatedAt: createdAt,
    }),
    db.insert(aiAuditEvents).values({
      id: newId('aud'),
      projectId,
      sessionId,
      userId,
      eventType: 'ai.session.created',
      payloadJson: JSON.stringify(target),
      createdAt,
    }),
  ]);
}
