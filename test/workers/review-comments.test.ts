/**
 * Line comments on the staged draft through the real Worker and session object: threads anchored
 * with Yjs relative positions follow edits and go outdated when their lines are rewritten; bad
 * input (a line that is gone, an oversized body) is refused and changes nothing; viewers comment
 * and reply, resolving is for the thread's author, editors and owners; @mentions notify.
 */
import { describe, expect, it } from 'vitest';
import { STEP, WF, connect, currentStep, stepChangeSet, stepSession, supportDeskProject } from './sessions.ts';

const STEP_KEY = `step:${WF}/${STEP}`;
const MARKER = '3. Cite the policy section for every violation.';

/** The current step with the marker line inserted before item 3 (and more lines when asked). */
async function draftWith(client: Parameters<typeof currentStep>[0], base: string, options: { marker?: string; above?: string } = {}) {
  const step = await currentStep(client, base);
  let markdown = step.markdown.replace('3. Set `variables.missingDetails`', `${options.marker ?? MARKER}\n4. Set \`variables.missingDetails\``);
  if (options.above) markdown = markdown.replace('## Goal', `${options.above}\n\n## Goal`);
  return markdown;
}

function lineOf(text: string, needle: string): number {
  const index = text.split('\n').findIndex((l) => l.includes(needle));
  if (index < 0) throw new Error(`"${needle}" not in the draft`);
  return index + 1;
}

describe('line comments', () => {
  it('anchor to a line range that follows edits above it, and go outdated when those lines are rewritten', async () => {
    const { owner, base, member } = await supportDeskProject();
    const editor = await member('editor');
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    await owner.post(`${path}/stage`, { changeSet: stepChangeSet(await draftWith(owner, base)) });
    const after = (await owner.get(`${path}/changes`)).data.files[0].after as string;
    const line = lineOf(after, MARKER);

    const thread = await editor.post(`${path}/comments`, { objectKey: STEP_KEY, line, lineEnd: line + 1, body: 'Which section numbering?' });
    expect(thread.status).toBe(201);
    let [state] = (await owner.get(path)).data.review.threads;
    expect(state).toMatchObject({ line, lineEnd: line + 1, anchor: 'current', quote: after.split('\n').slice(line - 1, line + 1).join('\n') });

    // Two lines added above: the thread moves down with its lines.
    await owner.post(`${path}/stage`, { changeSet: stepChangeSet(await draftWith(owner, base, { above: '> Reviewed for the policy audit.' })) });
    [state] = (await owner.get(path)).data.review.threads;
    expect(state).toMatchObject({ line: line + 2, lineEnd: line + 3, anchor: 'current' });

    // The commented line itself rewritten: outdated, shown where it was with its original text.
    await owner.post(`${path}/stage`, {
      changeSet: stepChangeSet(await draftWith(owner, base, { above: '> Reviewed for the policy audit.', marker: '3. Quote the policy section for every violation.' })),
    });
    [state] = (await owner.get(path)).data.review.threads;
    expect(state).toMatchObject({ line, lineEnd: line + 1, anchor: 'outdated' });
    expect(state.quote).toContain(MARKER);
  });

  it('refuse a comment on a line that no longer exists and a 1 MB comment, and change nothing', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    await owner.post(`${path}/stage`, { changeSet: stepChangeSet(await draftWith(owner, base)) });
    const lines = ((await owner.get(`${path}/changes`)).data.files[0].after as string).trimEnd().split('\n').length;
    const before = await owner.get(path);

    const gone = await owner.post(`${path}/comments`, { objectKey: STEP_KEY, line: lines + 5, body: 'Here?' });
    expect(gone.status).toBe(409);
    expect(gone.error).toMatchObject({ code: 'AI_COMMENT_LINE_GONE', lines });
    expect(gone.error?.message).toContain(`Line ${lines + 5}`);
    const unstaged = await owner.post(`${path}/comments`, { objectKey: `step:${WF}/route-ticket`, line: 1, body: 'Here?' });
    expect(unstaged.error?.code).toBe('AI_COMMENT_LINE_GONE');

    const huge = await owner.post(`${path}/comments`, { objectKey: STEP_KEY, line: 1, body: 'x'.repeat(1_000_000) });
    expect(huge.status).toBe(413);
    expect(huge.error).toMatchObject({ code: 'AI_COMMENT_TOO_LARGE', maxBytes: 16384, bytes: 1_000_000 });
    // The limit is in UTF-8 bytes: 9,000 two-byte letters are 18,000 bytes.
    expect((await owner.post(`${path}/comments`, { objectKey: STEP_KEY, line: 1, body: 'é'.repeat(9000) })).error?.code).toBe('AI_COMMENT_TOO_LARGE');

    const afterwards = await owner.get(path);
    expect(afterwards.data.review.threads).toEqual([]);
    expect(afterwards.data.lastSeq).toBe(before.data.lastSeq);
  });

  it('let viewers comment and reply live; resolving is for the thread author, editors and owners', async () => {
    const { owner, base, member } = await supportDeskProject();
    const viewer = await member('viewer');
    const other = await member('viewer', 'Vera');
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    await owner.post(`${path}/stage`, { changeSet: stepChangeSet(await draftWith(owner, base)) });
    const watcher = await connect(owner, base, sessionId);

    const thread = await viewer.post(`${path}/comments`, { objectKey: STEP_KEY, line: 2, body: 'Is **this** right? <img src=x onerror=alert(1)>' });
    expect(thread.status).toBe(201);
    const seen = await watcher.event('comment.added', (e) => e.payload.threadId === thread.data.threadId);
    expect(seen).toMatchObject({ actor: { userId: viewer.userId }, payload: { line: 2, lineEnd: 2 } });
    expect((await other.post(`${path}/comments`, { objectKey: STEP_KEY, threadId: thread.data.threadId, body: 'Looks fine.' })).status).toBe(201);

    expect((await other.post(`${path}/threads/${thread.data.threadId}/resolve`)).error?.code).toBe('FORBIDDEN');
    expect((await viewer.post(`${path}/threads/${thread.data.threadId}/resolve`)).data.status).toBe('resolved');
    await watcher.event('thread.resolved', (e) => e.payload.threadId === thread.data.threadId);
    expect((await owner.post(`${path}/threads/${thread.data.threadId}/reopen`)).data.status).toBe('open');
    const [state] = (await owner.get(path)).data.review.threads;
    expect(state.comments.map((c: any) => c.authorId)).toEqual([viewer.userId, other.userId]);
    watcher.close();
  });

  it('notify the people a comment @mentions, by name or email', async () => {
    const { owner, base, member } = await supportDeskProject();
    const editor = await member('editor');
    const viewer = await member('viewer');
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    await owner.post(`${path}/stage`, { changeSet: stepChangeSet(await draftWith(owner, base)) });
    const watcher = await connect(editor, base, sessionId);
    const posted = await owner.post(`${path}/comments`, { objectKey: STEP_KEY, line: 1, body: `@edith and @${viewer.email}, please check. @nobody` });
    const mentions = await watcher.until(() => {
      const found = watcher.events().filter((e) => e.type === 'mention');
      return found.length === 2 ? found : undefined;
    }, 'two mentions');
    expect(mentions.map((m: any) => m.payload.userId).sort()).toEqual([editor.userId, viewer.userId].sort());
    expect(mentions[0]).toMatchObject({ actor: { userId: owner.userId }, payload: { threadId: posted.data.threadId, objectKey: STEP_KEY, line: 1 } });
    watcher.close();
  });
});
