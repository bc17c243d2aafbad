/**
 * The D1 side of AI sessions for the session routes: whether a session belongs to a project, the
 * session row with its `ai.session.created` audit event (one batch). Whether a new session's
 * target exists is checked by the session object against its baseline (target-check.ts). The project's session list is ai-session-list.ts. The session's own state lives in its object.
 */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { aiAuditEvents, aiSessions } from '../db/schema.ts';
import { newId } from '../../shared/ids.ts';
import type { SessionMode, TargetType } from '../../shared/ai/session.ts';

export async function sessionInProject(db: Db, projectId: string, sessionId: string): Promise<boolean> {
  const row = await db
    .select({ id: aiSessions.id })
    .from(aiSessions)
    .where(and(eq(aiSessions.id, sessionId), eq(aiSessions.projectId, projectId)))
    .get();
  return row !== undefined;
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
