/**
 * Contracts of GET /api/users/me/mentions and POST /api/users/me/mentions/:mentionId/read: the
 * caller's @mentions in comments (only their own: there is no user id in the path), newest first.
 */
import * as z from 'zod';

export const MentionsQuery = z.object({
  /** `true`: read ones too (newest first); otherwise only unread ones. */
  all: z.enum(['true', 'false']).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(30),
});
export type MentionsQuery = z.infer<typeof MentionsQuery>;

export interface MentionView {
  id: string;
  projectId: string;
  projectName: string;
  sessionId: string;
  /** What the session works on, so a link can open it in the workbench; null if the session row is gone. */
  session: { targetType: 'workflow' | 'step' | 'agent' | 'asset'; targetId: string | null; workflowId: string | null; mode: 'create' | 'optimize'; status: 'active' | 'cancelled' | 'failed' } | null;
  threadId: string;
  commentId: string;
  authorName: string;
  objectKey: string | null;
  line: number | null;
  /** Plain text (markdown and HTML removed), at most MENTION_EXCERPT_CHARS characters. */
  excerpt: string;
  createdAt: string;
  readAt: string | null;
}

export interface MentionsPage {
  items: MentionView[];
  unread: number;
}
