/**
 * Comments sent on the socket a person already has (PROTOCOL.md "Requests on the socket"), through
 * the real upgrade and the real session object: a viewer's comment and a reply are answered with an
 * `ack`, reach every socket as `comment.added` and are stored as the HTTP route stores them, with
 * no D1 round trip; every refusal carries the request's id and changes nothing; a frame past the
 * cap closes the socket and stores nothing; a removed member's socket is closed before the removal
 * answers.
 */
import { describe, expect, it } from 'vitest';
import { d1RoundTripLog, d1RoundTrips, resetD1RoundTrips } from '../../worker/db/instrumented-d1.ts';
import { STEP, WF, connect, stagedStepSession, type Watcher } from './sessions.ts';

const STEP_KEY = `step:${WF}/${STEP}`;

const stagedSession = () => stagedStepSession((markdown) => `${markdown}\nA line to comment on.\n`);

/** Sends one `comment` request and waits for the frame that answers it (`ack` or `error`). */
async function commentOn(socket: Watcher, requestId: string, comment: Record<string, unknown>) {
  socket.send({ type: 'comment', requestId, comment });
  return socket.until(() => socket.texts().find((m) => (m.type === 'ack' || m.type === 'error') && m.requestId === requestId), `the answer to ${requestId}`);
}

describe('comments on the socket', () => {
  it("answers a viewer's comment and reply with an ack, sends comment.added to everyone and stores them as HTTP does, without a D1 round trip", async () => {
    const { owner, base, member, sessionId, path } = await stagedSession();
    const viewer = await member('viewer');
    const v = await connect(viewer, base, sessionId);
    const o = await connect(owner, base, sessionId);
    try {
      await o.until(() => o.texts().find((m) => m.type === 'events' && m.replay && m.done), 'the owner subscribed');
      resetD1RoundTrips();
      const ack = await commentOn(v, 'c-1', { objectKey: STEP_KEY, line: 1, body: 'Is the front matter complete?' });
      expect(ack).toMatchObject({ type: 'ack', requestId: 'c-1', data: { threadId: expect.any(String), commentId: expect.any(String) } });
      const added = await o.until(() => o.events().find((e) => e.type === 'comment.added' && e.payload.commentId === ack.data.commentId), 'comment.added at the owner');
      expect(added).toMatchObject({ actor: { kind: 'user', userId: viewer.userId }, payload: { threadId: ack.data.threadId, objectKey: STEP_KEY, line: 1, body: 'Is the front matter complete?' } });
      expect(d1RoundTrips(), d1RoundTripLog().join('\n')).toBe(0);

      const reply = await commentOn(o, 'c-2', { objectKey: STEP_KEY, body: 'Yes.', threadId: ack.data.threadId });
      expect(reply).toMatchObject({ type: 'ack', requestId: 'c-2', data: { threadId: ack.data.threadId } });

      // Stored as the HTTP route stores a thread: listed with both comments, by their authors.
      const [thread] = (await owner.get(path)).data.review.threads;
      expect(thread).toMatchObject({ id: ack.data.threadId, objectKey: STEP_KEY, line: 1, status: 'open', anchor: 'current' });
      expect(thread.comments.map((c: { body: string; authorId: string }) => [c.authorId, c.body])).toEqual([
        [viewer.userId, 'Is the front matter complete?'],
        [owner.userId, 'Yes.'],
      ]);
    } finally {
      v.close();
      o.close();
    }
  });

  it('refuses a line that is gone, an unknown thread, an empty body and a file not staged, each with its request id, and changes nothing', async () => {
    const { owner, base, sessionId, path } = await stagedSession();
    const o = await connect(owner, base, sessionId);
    try {
      await o.until(() => o.texts().find((m) => m.type === 'events' && m.replay && m.done), 'subscribed');
      const before = (await owner.get(path)).data.lastSeq;
      expect(await commentOn(o, 'gone', { objectKey: STEP_KEY, line: 100_000, body: 'Here?' })).toMatchObject({ type: 'error', code: 'AI_COMMENT_LINE_GONE', requestId: 'gone' });
      expect(await commentOn(o, 'thread', { objectKey: STEP_KEY, body: 'Hm.', threadId: 'th_doesnotexist' })).toMatchObject({ type: 'error', code: 'AI_COMMENT_NOT_FOUND', requestId: 'thread' });
      expect(await commentOn(o, 'blank', { objectKey: STEP_KEY, line: 1, body: '   ' })).toMatchObject({ type: 'error', code: 'VALIDATION_FAILED', requestId: 'blank' });
      expect(await commentOn(o, 'other', { objectKey: `step:${WF}/route-ticket`, line: 1, body: 'Here?' })).toMatchObject({ type: 'error', code: 'AI_COMMENT_LINE_GONE', requestId: 'other' });
      // A frame that is not a comment request at all: refused, the socket stays open.
      o.send({ type: 'comment', requestId: 'bad', comment: { objectKey: STEP_KEY, line: 'one', body: 'x' } });
      await o.until(() => o.texts().find((m) => m.type === 'error' && m.code === 'PROTOCOL_ERROR'), 'the protocol error');
      const after = await owner.get(path);
      expect(after.data.review.threads).toEqual([]);
      expect(after.data.lastSeq).toBe(before);
      expect(o.closed).toBeNull();
    } finally {
      o.close();
    }
  });

  it('closes the socket of a comment frame past the 16 KiB cap (counted in bytes) and stores nothing', async () => {
    const { owner, base, sessionId, path } = await stagedSession();
    const o = await connect(owner, base, sessionId);
    // 6,000 "€" are 6,000 characters but 18,000 bytes.
    o.send({ type: 'comment', requestId: 'big', comment: { objectKey: STEP_KEY, line: 1, body: '€'.repeat(6_000) } });
    await o.until(() => o.closed, 'the close');
    expect(o.closed).toEqual({ code: 4413, reason: 'FRAME_TOO_LARGE' });
    expect((await owner.get(path)).data.review.threads).toEqual([]);
  });

  it("closes a removed viewer's socket before the DELETE answers, so no comment of theirs can land after it", async () => {
    const { owner, base, member, sessionId, path } = await stagedSession();
    const viewer = await member('viewer');
    const v = await connect(viewer, base, sessionId);
    await v.until(() => v.texts().find((m) => m.type === 'events' && m.replay && m.done), 'subscribed');
    expect((await commentOn(v, 'member', { objectKey: STEP_KEY, line: 1, body: 'While a member.' })).type).toBe('ack');
    expect((await owner.delete(`${base}/members/${viewer.userId}`)).status).toBe(200);
    await v.until(() => v.closed, 'the close');
    expect(v.closed).toEqual({ code: 4430, reason: 'MEMBERSHIP_REVOKED' });
    const threads = (await owner.get(path)).data.review.threads;
    expect(threads.map((t: { comments: Array<{ body: string }> }) => t.comments.map((c) => c.body))).toEqual([['While a member.']]);
  });
});
