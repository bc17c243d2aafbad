/**
 * The resume replay and the byte caps, through the real upgrade: a replay pages through the whole
 * log (past the old 10,000-event limit, and across small pages), its frames stay under the server
 * cap in UTF-8 bytes, and a client text frame is capped in bytes, not characters.
 */
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';
import { MAX_CLIENT_TEXT_FRAME_BYTES, MAX_SERVER_FRAME_BYTES, utf8Bytes } from '../../shared/protocol.ts';
import { connect, supportDeskProject, stepSession, type Watcher } from './sessions.ts';
import { expectOrdered, sessionObject } from './turns.ts';

/** Append `count` comment events straight to the session's log (what a long session accumulates). */
async function appendComments(sessionId: string, count: number, body: string, pageSize?: number): Promise<number> {
  return runInDurableObject(sessionObject(sessionId), (instance: AiSessionDurableObject) => {
    if (pageSize !== undefined) instance.replayPageSize = pageSize;
    for (let i = 0; i < count; i++) {
      instance.core.log.append({
        type: 'comment.added',
        actor: { kind: 'user', userId: 'usr_test', name: 'Tess' },
        payload: { threadId: `th_${i}`, commentId: `cm_${i}`, objectKey: 'workflow:ticket-triage', line: null, body },
      });
    }
    return instance.core.log.lastSeq();
  });
}

/** Record the UTF-8 size of every text frame the socket receives. */
function frameSizes(watcher: Watcher): number[] {
  const sizes: number[] = [];
  watcher.socket.addEventListener('message', (event) => {
    if (typeof event.data === 'string') sizes.push(utf8Bytes(event.data));
  });
  return sizes;
}

async function replayed(watcher: Watcher, lastSeq: number) {
  await watcher.until(() => watcher.texts().find((m) => m.type === 'events' && m.replay && m.done), 'the end of the replay', 20_000);
  const events = watcher.events();
  expect(events.map((e) => e.seq)).toEqual(Array.from({ length: lastSeq }, (_, i) => i + 1));
  expectOrdered(events);
  const replayFrames = watcher.texts().filter((m) => m.type === 'events' && m.replay);
  expect(replayFrames.filter((m) => m.done)).toHaveLength(1);
  expect(replayFrames.at(-1).done).toBe(true);
  return replayFrames;
}

describe('the resume replay', () => {
  it('delivers all 10,051 events of a long session to a viewer resuming from 0, not the first 10,000', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const lastSeq = await appendComments(sessionId, 10_050, 'ok');
    expect(lastSeq).toBe(10_051);
    const watcher = await connect(owner, base, sessionId, null);
    watcher.send({ type: 'hello', lastSeq: 0 });
    await replayed(watcher, lastSeq);
    watcher.close();
  });

  it('pages through the log with a small page size and keeps every frame under the server cap in UTF-8 bytes', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    // 3,000 euro signs: 3,000 characters but 9,000 bytes each; 100 of them are ~3.4x the cap in bytes.
    const lastSeq = await appendComments(sessionId, 100, '€'.repeat(3_000), 7);
    const watcher = await connect(owner, base, sessionId, null);
    const sizes = frameSizes(watcher);
    watcher.send({ type: 'hello', lastSeq: 0 });
    const frames = await replayed(watcher, lastSeq);
    expect(frames.length).toBeGreaterThanOrEqual(4);
    expect(sizes.length).toBeGreaterThan(0);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(MAX_SERVER_FRAME_BYTES);
    watcher.close();
  });

  it('resumes mid-log across pages without a gap or a duplicate', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const lastSeq = await appendComments(sessionId, 40, 'ok', 5);
    const watcher = await connect(owner, base, sessionId, null);
    watcher.send({ type: 'hello', lastSeq: 13 });
    await watcher.until(() => watcher.texts().find((m) => m.type === 'events' && m.replay && m.done), 'the end of the replay');
    expect(watcher.events().map((e) => e.seq)).toEqual(Array.from({ length: lastSeq - 13 }, (_, i) => i + 14));
    watcher.close();
  });
});

describe('client text frames are capped in bytes', () => {
  it('closes on a non-ASCII frame under the cap in characters but over it in bytes', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const frame = JSON.stringify({ type: 'presence', file: '€'.repeat(6_000) });
    expect(frame.length).toBeLessThan(MAX_CLIENT_TEXT_FRAME_BYTES);
    expect(utf8Bytes(frame)).toBeGreaterThan(MAX_CLIENT_TEXT_FRAME_BYTES);
    const watcher = await connect(owner, base, sessionId);
    watcher.send(frame);
    await watcher.until(() => watcher.closed, 'the close');
    expect(watcher.closed).toEqual({ code: 4413, reason: 'FRAME_TOO_LARGE' });
    expect(watcher.texts()).toContainEqual(expect.objectContaining({ type: 'error', code: 'FRAME_TOO_LARGE' }));
  });

  it('keeps a non-ASCII frame under the byte cap open (refused only by its schema)', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const frame = JSON.stringify({ type: 'presence', file: '€'.repeat(1_500) });
    expect(utf8Bytes(frame)).toBeLessThan(MAX_CLIENT_TEXT_FRAME_BYTES);
    const watcher = await connect(owner, base, sessionId);
    watcher.send(frame);
    await watcher.until(() => watcher.texts().find((m) => m.type === 'error'), 'the refusal');
    expect(watcher.texts().find((m) => m.type === 'error')).toMatchObject({ code: 'PROTOCOL_ERROR' });
    expect(watcher.closed).toBeNull();
    watcher.close();
  });
});
