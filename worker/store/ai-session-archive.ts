/**
 * The read-only past session of an object whose storage was released after the retention period
 * (durable-objects/ai-session/retention.ts wrote it): its view as it last was, the timeline summary,
 * the conversation's summaries and the final diff, read from `ai_session_archives`.
 */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { aiSessionArchives } from '../db/schema.ts';
import type { FileDiff } from '../../shared/api/ai-session-views.ts';

export interface ArchivedSession {
  view: Record<string, unknown>;
  archived: {
    releasedAt: string;
    timeline: { events: number; byType: Record<string, number>; firstAt: string | null; lastAt: string | null };
    conversation: Array<{ turnId: string | null; role: string; summary: string; at: string }>;
    finalDiff: FileDiff[];
  };
}

export async function readArchive(db: Db, projectId: string, sessionId: string): Promise<ArchivedSession | null> {
  const row = await db
    .select()
    .from(aiSessionArchives)
    .where(and(eq(aiSessionArchives.sessionId, sessionId), eq(aiSessionArchives.projectId, projectId)))
    .get();
  if (!row) return null;
  return {
    view: JSON.parse(row.viewJson) as Record<string, unknown>,
    archived: {
      releasedAt: row.releasedAt,
      timeline: JSON.parse(row.timelineJson) as ArchivedSession['archived']['timeline'],
      conversation: JSON.parse(row.conversationJson) as ArchivedSession['archived']['conversation'],
      finalDiff: JSON.parse(row.finalDiffJson) as FileDiff[],
    },
  };
}
