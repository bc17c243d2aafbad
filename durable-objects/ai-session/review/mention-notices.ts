/**
 * Mention notices in D1 (the `mentions` table): one row per person a comment @mentions, written
 * after the comment is stored in the session. Best effort by design: the comment is already kept
 * and shown live, so a failed write is logged and the comment stands.
 */
import { mentions } from '../../../worker/db/schema.ts';
import type { Db } from '../../../worker/db/client.ts';
import { mentionExcerpt } from '../../../shared/ai/mention-excerpt.ts';
import { logError } from '../../../shared/errors-report.ts';
import { newId } from '../../../shared/ids.ts';

export interface MentionNotice {
  projectId: string;
  sessionId: string;
  threadId: string;
  commentId: string;
  author: { userId: string; name: string };
  objectKey: string | null;
  line: number | null;
  body: string;
}

/** Write one notice per recipient in one batch; false (logged) when D1 refused it. */
export async function recordMentions(db: Db, notice: MentionNotice, recipients: readonly string[]): Promise<boolean> {
  if (recipients.length === 0) return true;
  const excerpt = mentionExcerpt(notice.body);
  try {
    await db
      .insert(mentions)
      .values(
        recipients.map((userId) => ({
          id: newId('mnt'),
          userId,
          projectId: notice.projectId,
          sessionId: notice.sessionId,
          threadId: notice.threadId,
          commentId: notice.commentId,
          authorId: notice.author.userId,
          authorName: notice.author.name,
          objectKey: notice.objectKey,
          line: notice.line,
          excerpt,
        })),
      )
      .onConflictDoNothing();
    return true;
  } catch (error) {
    logError('ai session: could not record mention notices', error, { sessionId: notice.sessionId });
    return false;
  }
}
