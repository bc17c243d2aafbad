/**
 * @mention notices kept in D1 through the real Worker and session object: a comment that mentions a
 * member leaves one row for that member only (never for a non-member or the author), each person
 * lists and marks read only their own, the notice's text is plain (no markdown, no HTML), and a
 * removed member no longer sees the notices of that project.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { signedInClient } from './client.ts';
import { STEP, WF, currentStep, stepChangeSet, stepSession, supportDeskProject } from './sessions.ts';

const STEP_KEY = `step:${WF}/${STEP}`;

async function stagedSession() {
  const project = await supportDeskProject();
  const { owner, base } = project;
  const sessionId = await stepSession(owner, base);
  const path = `${base}/ai/sessions/${sessionId}`;
  const step = await currentStep(owner, base);
  const staged = await owner.post(`${path}/stage`, { changeSet: stepChangeSet(`${step.markdown.trimEnd()}\n\nOne more line.\n`) });
  if (staged.status >= 300) throw new Error(`stage failed: ${JSON.stringify(staged.error)}`);
  return { ...project, sessionId, path };
}

async function rowsFor(commentId: string) {
  return (await env.DB.prepare('SELECT user_id, author_id, excerpt, read_at FROM mentions WHERE comment_id = ?').bind(commentId).all()).results;
}

describe('mention notices', () => {
  it('are kept for the mentioned member only, listed and read by them alone', async () => {
    const { owner, member, path, sessionId, projectId } = await stagedSession();
    const editor = await member('editor', 'Edith');
    const viewer = await member('viewer', 'Victor');
    // Not a member of this project: their name and email mention nobody.
    const stranger = await signedInClient('Stella');

    const posted = await owner.post(`${path}/comments`, { objectKey: STEP_KEY, line: 1, body: `@Edith please look. @Stella @${stranger.email} @Owner` });
    expect(posted.status).toBe(201);
    const rows = await rowsFor(posted.data.commentId);
    expect(rows).toEqual([{ user_id: editor.userId, author_id: owner.userId, excerpt: expect.stringContaining('please look'), read_at: null }]);

    const listed = await editor.get('/api/users/me/mentions');
    expect(listed.status).toBe(200);
    expect(listed.data.unread).toBe(1);
    expect(listed.data.items).toEqual([
      expect.objectContaining({
        projectId,
        sessionId,
        session: { targetType: 'step', targetId: STEP, workflowId: WF, mode: 'optimize', status: 'active' },
        threadId: posted.data.threadId,
        commentId: posted.data.commentId,
        authorName: 'Owner',
        objectKey: STEP_KEY,
        line: 1,
        readAt: null,
      }),
    ]);
    const mentionId = listed.data.items[0].id as string;

    // Nobody else sees it or can mark it: the viewer, the stranger and the author get "not found".
    for (const other of [viewer, stranger, owner]) {
      expect((await other.get('/api/users/me/mentions')).data).toEqual({ items: [], unread: 0 });
      const refused = await other.post(`/api/users/me/mentions/${mentionId}/read`);
      expect(refused.status).toBe(404);
      expect(refused.error?.code).toBe('MENTION_NOT_FOUND');
    }
    expect((await rowsFor(posted.data.commentId))[0]!.read_at).toBeNull();

    // The recipient marks it read: it leaves the unread list and stays in the full one.
    const read = await editor.post(`/api/users/me/mentions/${mentionId}/read`);
    expect(read.status).toBe(200);
    expect(read.data.readAt).toEqual(expect.any(String));
    expect((await editor.get('/api/users/me/mentions')).data).toEqual({ items: [], unread: 0 });
    const all = await editor.get('/api/users/me/mentions?all=true');
    expect(all.data.items.map((m: any) => [m.id, m.readAt])).toEqual([[mentionId, read.data.readAt]]);
    expect((await editor.get('/api/users/me/mentions?x=1')).status).toBe(200);
  });

  it('keep a plain-text excerpt: no markdown, no HTML, no link targets', async () => {
    const { owner, member, path } = await stagedSession();
    const editor = await member('editor', 'Edith');
    const body = '@Edith is **this** right? <img src=x onerror=alert(1)> see [the policy](javascript:alert(1)) &lt;script&gt;x&lt;/script&gt;\n\n<script>alert(2)</script>';
    const posted = await owner.post(`${path}/comments`, { objectKey: STEP_KEY, line: 1, body });
    expect(posted.status).toBe(201);
    const [notice] = (await editor.get('/api/users/me/mentions')).data.items;
    expect(notice.excerpt).toContain('is this right?');
    expect(notice.excerpt).toContain('see the policy');
    for (const unsafe of ['<', '>', '**', 'javascript:', 'onerror', 'alert(2)', '](']) expect(notice.excerpt).not.toContain(unsafe);
  });

  it('are hidden once the recipient leaves the project, and a reply that mentions them again adds one more', async () => {
    const { owner, member, path, base } = await stagedSession();
    const editor = await member('editor', 'Edith');
    const first = await owner.post(`${path}/comments`, { objectKey: STEP_KEY, line: 1, body: '@Edith first' });
    const reply = await owner.post(`${path}/comments`, { objectKey: STEP_KEY, threadId: first.data.threadId, body: 'and again @edith' });
    expect(reply.status).toBe(201);
    const listed = (await editor.get('/api/users/me/mentions')).data;
    expect(listed.unread).toBe(2);
    expect(listed.items.map((m: any) => m.commentId).sort()).toEqual([first.data.commentId, reply.data.commentId].sort());
    const removed = await owner.delete(`${base}/members/${editor.userId}`);
    expect(removed.status).toBeLessThan(300);
    expect((await editor.get('/api/users/me/mentions')).data).toEqual({ items: [], unread: 0 });
    const mark = await editor.post(`/api/users/me/mentions/${listed.items[0].id}/read`);
    expect(mark.status).toBe(404);
  });
});
