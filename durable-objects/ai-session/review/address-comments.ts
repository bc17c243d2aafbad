/**
 * "Address the open comments": the open review threads become the next AI turn's task (the
 * fenced message of prompt/review-threads.ts), and the threads the turn's final answer names are
 * marked "addressed in version N" — N being the version that turn staged. They stay open: only a
 * person resolves a thread.
 */
import { ApiError } from '../../../shared/api-error.ts';
import { atLeast } from '../../../shared/api/common.ts';
import type { Actor } from '../../../shared/ai/session-rpc.ts';
import type { ReviewThread } from '../../../shared/api/ai-session-views.ts';
import { contentOf, pathOf } from '../overlay/effective-view.ts';
import type { EffectiveView } from '../overlay/effective-view.ts';
import type { SessionCore } from '../session.ts';
import { addressedThreadIds, reviewThreadsMessage, MAX_THREADS_IN_TASK, type ThreadForAi } from '../prompt/review-threads.ts';

const lineCount = (text: string): number => (text === '' ? 0 : text.split('\n').length);

/** One open thread as the model reads it: its file, its lines and their text now, every comment with its author. */
export function threadForAi(thread: ReviewThread, view: EffectiveView): ThreadForAi {
  const content = contentOf(view.pkg, thread.objectKey);
  const first = thread.line;
  const last = thread.lineEnd ?? thread.line;
  let currentText: string | null = content;
  if (content !== null && first !== null && last !== null) currentText = content.split('\n').slice(first - 1, last).join('\n');
  return {
    threadId: thread.id,
    objectKey: thread.objectKey,
    path: pathOf(view.pkg, thread.objectKey) ?? null,
    lines: first === null ? null : last !== null && last !== first ? `${first}-${last}` : String(first),
    anchor: thread.anchor,
    currentText,
    ...(thread.anchor === 'outdated' && thread.quote !== null ? { textWhenCommented: thread.quote } : {}),
    comments: thread.comments.map((c) => ({ author: c.authorName, text: c.body })),
  };
}

/** The open threads of the session, oldest first, as the draft is now. */
async function openThreads(core: SessionCore): Promise<{ threads: ReviewThread[]; view: EffectiveView }> {
  const { view } = await core.view();
  const threads = core.review.threads({
    doc: core.overlay.doc,
    textOf: (key) => core.overlay.textOf(key),
    lineCount: (key) => {
      const text = contentOf(view.pkg, key);
      return text === null ? null : lineCount(text);
    },
  });
  return { threads: threads.filter((t) => t.status === 'open'), view };
}

/**
 * The turn's message, or a refusal: viewers may not start turns, and a session without open
 * threads has nothing to address. The turn itself is accepted like any message (one at a time,
 * budget, roles: loop/turn-runner.ts).
 */
export async function addressCommentsTask(core: SessionCore, actor: Actor): Promise<{ content: string; threadIds: string[] }> {
  if (!core.meta) throw new ApiError('AI_SESSION_NOT_FOUND');
  if (core.status !== 'active') throw new ApiError('AI_SESSION_CLOSED');
  if (!atLeast(actor.role, 'editor')) {
    throw new ApiError('FORBIDDEN', { message: `Asking the AI to address the comments needs the editor role; you are a ${actor.role}.` });
  }
  const { threads, view } = await openThreads(core);
  if (threads.length === 0) {
    throw new ApiError('AI_NO_OPEN_THREADS', { hints: ['Comment on lines of the staged draft first, or reopen a resolved thread.'] });
  }
  const forAi = threads.map((t) => threadForAi(t, view));
  return { content: reviewThreadsMessage(forAi), threadIds: forAi.slice(0, MAX_THREADS_IN_TASK).map((t) => t.threadId) };
}

/**
 * After a finished turn: the open threads its answer names (unknown, resolved or misspelt ids are
 * ignored) are marked addressed in the version the turn staged. Nothing staged: nothing to mark.
 */
export function markAddressedThreads(core: SessionCore, turnId: string, named: unknown): string[] {
  const ids = addressedThreadIds(named);
  const version = core.turns.get(turnId)?.stagedVersion ?? null;
  if (ids.length === 0 || version === null) return [];
  const known = ids.filter((id) => core.review.thread(id)?.status === 'open');
  core.review.markAddressed(known, version, turnId);
  return known;
}
