/**
 * A script flooding a session's review with comments (each is stored, sent to every viewer and its
 * @mentions written to D1), through the real socket and the real route: one person gets 30 a minute
 * (wrangler.toml `AI_COMMENTS_PER_MINUTE`), all at once if they like; the next is refused with
 * RATE_LIMITED and how long to wait, on the socket and over HTTP alike (they share the bucket);
 * every comment before it is kept, and other people are not held back.
 */
import { describe, expect, it } from 'vitest';
import { STEP, WF, connect, stagedStepSession, type Watcher } from './sessions.ts';

const STEP_KEY = `step:${WF}/${STEP}`;
const PER_MINUTE = 30;

async function commentOn(socket: Watcher, requestId: string, body: string) {
  socket.send({ type: 'comment', requestId, comment: { objectKey: STEP_KEY, line: 1, body } });
  return socket.until(() => socket.texts().find((m) => (m.type === 'ack' || m.type === 'error') && m.requestId === requestId), `the answer to ${requestId}`);
}

describe('a flood of comments', () => {
  it('takes 30 a minute from one person, refuses the next on the socket and over HTTP, keeps the 30 and lets another person comment', async () => {
    const { owner, base, member, sessionId, path } = await stagedStepSession((m) => `${m}\nA line to comment on.\n`);
    const viewer = await member('viewer');
    const v = await connect(viewer, base, sessionId);
    try {
      for (let i = 0; i < PER_MINUTE; i++) expect(await commentOn(v, `c-${i}`, `comment ${i}`)).toMatchObject({ type: 'ack' });
      const refused = await commentOn(v, 'c-over', 'one too many');
      expect(refused).toMatchObject({ type: 'error', code: 'RATE_LIMITED', requestId: 'c-over' });
      expect(refused.message).toMatch(/Wait \d+ seconds/);
      expect(v.closed).toBeNull();
      // More keep getting the comment rate's answer on the open socket (the rate an operator sets
      // governs comments; the socket's budget for other frames does not close it first).
      for (let i = 0; i < 40; i++) expect(await commentOn(v, `again-${i}`, 'still too many')).toMatchObject({ type: 'error', code: 'RATE_LIMITED' });
      expect(v.closed).toBeNull();

      const overHttp = await viewer.post(`${path}/comments`, { objectKey: STEP_KEY, line: 1, body: 'and over HTTP' });
      expect(overHttp.status).toBe(429);
      expect(overHttp.error).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: expect.any(Number) });

      const others = await owner.post(`${path}/comments`, { objectKey: STEP_KEY, line: 1, body: 'The owner still can.' });
      expect(others.status).toBe(201);

      const threads = (await owner.get(path)).data.review.threads as Array<{ comments: Array<{ authorId: string; body: string }> }>;
      const bodies = threads.flatMap((t) => t.comments.map((c) => c.body));
      expect(bodies.filter((b) => b.startsWith('comment '))).toHaveLength(PER_MINUTE);
      expect(bodies).not.toContain('one too many');
      expect(bodies).not.toContain('and over HTTP');
      expect(bodies).toContain('The owner still can.');
    } finally {
      v.close();
    }
  });
});
