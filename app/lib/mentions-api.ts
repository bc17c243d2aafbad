/**
 * Typed client for /api/users/me/mentions (the caller's @mention notices, and marking one read),
 * on lib/api.ts's transport, and the workbench address a notice opens.
 */
import { resolve } from '$app/paths';
import type { MentionsPage, MentionView } from '../../shared/api/mentions.ts';
import { workbenchSearch } from './workbench-address.ts';
import { request, type FetchLike } from './api.ts';

const PATH = '/users/me/mentions';

export function createMentionsApi(fetchFn: FetchLike = (input, init) => globalThis.fetch(input, init)) {
  return {
    /** Unread ones, newest first (`all`: read ones too), with the unread count. */
    list: (all = false) => request<MentionsPage>(fetchFn, 'GET', PATH, all ? { query: { all: 'true' } } : {}),
    markRead: (mentionId: string) => request<{ id: string; readAt: string }>(fetchFn, 'POST', `${PATH}/${encodeURIComponent(mentionId)}/read`, { body: {} }),
  };
}

export const mentionsApi = createMentionsApi();

/** The workbench on the mention's session and thread (read-only once the session is over); null without its session. */
export function mentionHref(mention: MentionView): string | null {
  const session = mention.session;
  if (!session) return null;
  const search = new URLSearchParams(
    workbenchSearch({
      targetType: session.targetType,
      mode: session.mode,
      ...(session.targetId !== null ? { targetId: session.targetId } : {}),
      ...(session.workflowId !== null ? { workflowId: session.workflowId } : {}),
    }),
  );
  search.set('session', mention.sessionId);
  search.set('thread', mention.threadId);
  if (session.status !== 'active') search.set('readonly', '1');
  return `${resolve('/builder/[projectId]/ai-workbench', { projectId: mention.projectId })}?${search.toString()}`;
}
