import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../shared/ai/events.ts';
import type { HelloMessage, PresenceEntry } from '../../../shared/protocol.ts';
import { accepted, event, finished } from './events.fixture.ts';
import { LiveFeed } from './live-feed.svelte.ts';
import { fakeSocket } from './transport.fixture.ts';

const hello: HelloMessage = {
  type: 'hello',
  protocolVersion: 1,
  sessionId: 's1',
  you: { userId: 'u_owner', name: 'Olive Owner', role: 'owner' },
  lastSeq: 0,
  status: 'active',
  canEdit: true,
};

const presenceOf = (userId: string, file: string | null = null): PresenceEntry => ({
  connectionId: `c_${userId}`,
  userId,
  name: userId,
  role: 'editor',
  file,
  since: '2026-01-01T00:00:00.000Z',
});

function setup() {
  const socket = fakeSocket();
  const feed = new LiveFeed(socket.connect);
  const batches: Array<{ seqs: number[]; replay: boolean }> = [];
  feed.open('p1', 's1', (fresh, replay) => batches.push({ seqs: fresh.map((e) => e.seq), replay }));
  const events = (list: SessionEvent[], replay = false, done = true) => socket.receive({ type: 'events', events: list, replay, done });
  return { socket, feed, batches, events };
}

describe('LiveFeed', () => {
  it('connects to the session it is opened on', () => {
    const { socket } = setup();
    expect(socket.opened).toEqual([{ projectId: 'p1', sessionId: 's1' }]);
  });

  it('folds event frames into the log and hands on only the new events', () => {
    const { feed, batches, events } = setup();
    events([accepted(1, 'Tighten step one'), event(2, 'assistant.delta', { iteration: 1, text: 'On it.' })]);
    expect(feed.log.turns.map((t) => [t.turnId, t.text])).toEqual([['t1', 'On it.']]);
    expect(feed.log.lastSeq).toBe(2);
    // A resume replay that repeats seq 2 adds only seq 3.
    events([event(2, 'assistant.delta', { iteration: 1, text: 'On it.' }), finished(3, 'Done.')], true);
    expect(batches).toEqual([
      { seqs: [1, 2], replay: false },
      { seqs: [3], replay: true },
    ]);
    expect(feed.log.turns[0]?.text).toBe('On it.');
    expect(feed.log.turns[0]?.ending?.type).toBe('finished');
  });

  it('tells nobody about a frame of events it already has', () => {
    const { batches, events } = setup();
    events([accepted(1, 'x')]);
    events([accepted(1, 'x')], true);
    expect(batches).toHaveLength(1);
  });

  it('asks to resume from the newest seq it folded', () => {
    const { socket, events } = setup();
    expect(socket.lastSeq()).toBe(0);
    events([accepted(1, 'x'), event(2, 'llm.requested', { iteration: 1, messages: 2, tools: 1 })]);
    expect(socket.lastSeq()).toBe(2);
  });

  it('counts the replay as arrived only at its last frame', () => {
    const { feed, events } = setup();
    events([accepted(1, 'x')], true, false);
    expect(feed.replayed).toBe(false);
    events([finished(2, 'y')], true, true);
    expect(feed.replayed).toBe(true);
  });

  it('knows who it is from hello, who else is here from presence', () => {
    const { socket, feed } = setup();
    socket.receive(hello);
    socket.receive({ type: 'presence', present: [presenceOf('u_owner'), presenceOf('u_ed', 'step:wf/n1')] });
    expect(feed.you).toEqual(hello.you);
    expect(feed.presence.map((p) => [p.userId, p.file])).toEqual([
      ['u_owner', null],
      ['u_ed', 'step:wf/n1'],
    ]);
  });

  it('keeps a refused frame as an API error, an unknown code as INTERNAL_ERROR, until the next hello', () => {
    const { socket, feed } = setup();
    socket.receive({ type: 'error', code: 'FORBIDDEN', message: 'Viewers cannot stop a turn.', hints: ['Ask an editor.'] });
    expect(feed.error).toEqual({ code: 'FORBIDDEN', message: 'Viewers cannot stop a turn.', hints: ['Ask an editor.'] });
    socket.receive({ type: 'error', code: 'SOMETHING_NEW', message: 'Odd.' });
    expect(feed.error).toEqual({ code: 'INTERNAL_ERROR', message: 'Odd.' });
    socket.receive(hello);
    expect(feed.error).toBeNull();
  });

  it('sends stop only on an open socket', () => {
    const { socket, feed } = setup();
    expect(feed.stop()).toBe(false);
    socket.status('open');
    expect(feed.stop()).toBe(true);
    expect(socket.sent).toEqual([{ type: 'stop' }]);
  });

  it('says which file it looks at once per change, and again after every reconnect', () => {
    const { socket, feed } = setup();
    socket.status('open');
    feed.lookAt('step:wf/n1');
    feed.lookAt('step:wf/n1');
    socket.status('reconnecting');
    socket.status('open');
    feed.lookAt(null);
    expect(socket.sent).toEqual([
      { type: 'presence', file: 'step:wf/n1' },
      { type: 'presence', file: 'step:wf/n1' },
      { type: 'presence', file: null },
    ]);
  });

  it('forgets everything of a session when closed, and starts the next one from seq 0', () => {
    const { socket, feed, events } = setup();
    socket.receive(hello);
    socket.receive({ type: 'presence', present: [presenceOf('u_ed')] });
    events([accepted(1, 'x')], true, true);
    feed.open('p1', 's2', () => {});
    expect(socket.closed).toBe(1);
    expect(socket.opened.at(-1)).toEqual({ projectId: 'p1', sessionId: 's2' });
    expect([feed.log.turns, feed.log.lastSeq, feed.replayed, feed.you, feed.presence]).toEqual([[], 0, false, null, []]);
    expect(socket.lastSeq()).toBe(0);
  });
});

describe('LiveFeed and the co-edited draft', () => {
  it("exposes the AI's presence and people's edits, marked as theirs", () => {
    const { socket, feed, events } = setup();
    socket.status('open');
    socket.receive({ type: 'presence', present: [presenceOf('u_edith', 'step:wf/a')], ai: { action: 'writing', file: 'step:wf/a', tool: 'builder.change.stage' } });
    expect(feed.ai).toEqual({ action: 'writing', file: 'step:wf/a', tool: 'builder.change.stage' });
    events([
      event(1, 'change.staged', { version: 1, changeSetId: 'cs_1', contentHash: 'h1', source: 'ai', files: [{ key: 'step:wf/a', action: 'M' }] }),
      event(2, 'change.staged', { version: 2, changeSetId: 'cs_2', contentHash: 'h2', source: 'edit', files: [{ key: 'step:wf/a', action: 'M' }] }, {
        turnId: null,
        actor: { kind: 'user', userId: 'u_edith', name: 'Edith' },
      }),
    ]);
    expect(feed.edits).toEqual([{ seq: 2, version: 2, userId: 'u_edith', name: 'Edith', keys: ['step:wf/a'] }]);
    socket.receive({ type: 'presence', present: [], ai: null });
    expect(feed.ai).toBeNull();
  });

  it('routes binary frames to an attached draft, resyncs it on every open, and stops after detach', () => {
    const { socket, feed } = setup();
    const seen: string[] = [];
    const detach = feed.attach({ onBinary: (data) => seen.push(`frame ${data.length}`), onOpen: () => seen.push('open') });
    socket.status('open');
    socket.receiveBinary(new Uint8Array([0, 0, 1]));
    socket.status('reconnecting');
    socket.status('open');
    detach();
    socket.receiveBinary(new Uint8Array([1]));
    expect(seen).toEqual(['open', 'frame 3', 'open']);
    expect(feed.sendBinary(new Uint8Array([0]))).toBe(true);
  });

  describe('comments on the socket', () => {
    const comment = { objectKey: 'step:wf/s', line: 3, body: 'Why this order?' };

    it('sends a comment on the open socket and settles it with the ack of its id', async () => {
      const { socket, feed } = setup();
      socket.status('open');
      const answer = feed.comment(comment)!;
      expect(socket.sent).toEqual([{ type: 'comment', requestId: 'c1', comment }]);
      socket.receive({ type: 'ack', requestId: 'c1', data: { threadId: 'th1', commentId: 'cm1' } });
      expect(await answer).toEqual({ ok: true, data: { threadId: 'th1', commentId: 'cm1' } });
    });

    it("settles a refused comment with the server's code, and leaves the feed's own error alone", async () => {
      const { socket, feed } = setup();
      socket.status('open');
      const answer = feed.comment(comment)!;
      socket.receive({ type: 'error', code: 'AI_COMMENT_LINE_GONE', message: 'Line 3 is gone.', hints: ['Reload.'], requestId: 'c1' });
      expect(await answer).toEqual({ ok: false, error: { code: 'AI_COMMENT_LINE_GONE', message: 'Line 3 is gone.', hints: ['Reload.'] } });
      expect(feed.error).toBeNull();
    });

    it('returns null (send it over HTTP) when the socket is not open or the frame would pass the cap', () => {
      const { socket, feed } = setup();
      expect(feed.comment(comment)).toBeNull();
      socket.status('open');
      // 6,000 "€" are 18,000 bytes: past the 16 KiB of a text frame.
      expect(feed.comment({ ...comment, body: '€'.repeat(6_000) })).toBeNull();
      expect(socket.sent).toEqual([]);
    });

    it('settles a comment whose socket closes before the answer as an error, without sending it again', async () => {
      const { socket, feed } = setup();
      socket.status('open');
      const answer = feed.comment(comment)!;
      socket.status('connecting');
      const result = await answer;
      expect(result.ok).toBe(false);
      socket.status('open');
      // A late ack for it changes nothing; nothing was sent twice.
      socket.receive({ type: 'ack', requestId: 'c1', data: { threadId: 'th1', commentId: 'cm1' } });
      expect(socket.sent.filter((m) => m.type === 'comment')).toHaveLength(1);
    });
  });
});
