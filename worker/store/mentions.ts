/**
 * A person's @mention notices (the `mentions` table, written by the session object): listed only
 * for their recipient and only in projects they are still a member of; marked read only by them.
 */
import { and, count, desc, eq, isNull } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { aiSessions, mentions, projectMembers, projects } from '../db/schema.ts';
import { ApiError } from '../../shared/api-error.ts';
import { nowIso } from '../../shared/ids.ts';
import type { MentionsPage, MentionsQuery, MentionView } from '../../shared/api/mentions.ts';

/** The recipient's mentions in projects where they are still a member. */
function mine(userId: string) {
  return and(eq(mentions.userId, userId), eq(projectMembers.userId, userId));
}

export async function listMentions(db: Db, userId: string, query: MentionsQuery): Promise<MentionsPage> {
  const unreadOnly = query.all !== 'true';
  const rows = await db
    .select({
      id: mentions.id,
      projectId: mentions.projectId,
      projectName: projects.name,
      sessionId: mentions.sessionId,
      targetType: aiSessions.targetType,
      targetId: aiSessions.targetId,
      workflowId: aiSessions.workflowId,
      mode: aiSessions.mode,
      status: aiSessions.status,
      threadId: mentions.threadId,
      commentId: mentions.commentId,
      authorName: mentions.authorName,
      objectKey: mentions.objectKey,
      line: mentions.line,
      excerpt: mentions.excerpt,
      createdAt: mentions.createdAt,
      readAt: mentions.readAt,
    })
    .from(mentions)
    .innerJoin(projects, eq(projects.id, mentions.projectId))
    .leftJoin(aiSessions, eq(aiSessions.id, mentions.sessionId))
    .innerJoin(projectMembers, and(eq(projectMembers.projectId, mentions.projectId), eq(projectMembers.userId, mentions.userId)))
    .where(unreadOnly ? and(mine(userId), isNull(mentions.readAt)) : mine(userId))
    .orderBy(desc(mentions.createdAt), desc(mentions.id))
    .limit(query.limit);
  const [unread] = await db
    .select({ n: count() })
    .from(mentions)
    .innerJoin(projectMembers, and(eq(projectMembers.projectId, mentions.projectId), eq(projectMembers.userId, mentions.userId)))
    .where(and(mine(userId), isNull(mentions.readAt)));
  const items = rows.map(({ targetType, targetId, workflowId, mode, status, ...row }): MentionView => ({
    ...row,
    session: targetType && mode && status ? { targetType, targetId, workflowId, mode, status } : null,
  }));
  return { items, unread: unread?.n ?? 0 };
}

/** Mark one of the caller's mentions read; someone else's is "not found", never "forbidden" (ids are not confirmed). */
export async function markMentionRead(db: Db, userId: string, mentionId: string): Promise<{ id: string; readAt: string }> {
  const [row] = await db
    .select({ readAt: mentions.readAt })
    .from(mentions)
    .innerJoin(projectMembers, and(eq(projectMembers.projectId, mentions.projectId), eq(projectMembers.userId, mentions.userId)))
    .where(and(eq(mentions.id, mentionId), mine(userId)));
  if (!row) throw new ApiError('MENTION_NOT_FOUND');
  if (row.readAt) return { id: mentionId, readAt: row.readAt };
  const readAt = nowIso();
  await db.update(mentions).set({ readAt }).where(and(eq(mentions.id, mentionId), eq(mentions.userId, userId), isNull(mentions.readAt)));
  return { id: mentionId, readAt };
}
