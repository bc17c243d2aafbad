/**
 * The AI as an awareness participant, through the real upgrade and a real turn: a co-editor's socket
 * receives the AI's state (its name, colour and a Yjs cursor at the end of what it wrote in the
 * file) while the turn runs, a socket joining mid-turn gets it too, it is removed when the turn
 * ends, and no socket may pass for the AI.
 */
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { AI_AWARENESS } from '../../shared/protocol.ts';
import type { ScriptStep } from './scripted-model.ts';
import { STEP, WF, YClient, connect, currentStep, shareCursor, stepChangeSet, stepSession, supportDeskProject, type Watcher } from './sessions.ts';
import { finalAnswer, send, toolCall, turnEnd, useScriptedModel } from './turns.ts';

const STEP_KEY = `step:${WF}/${STEP}`;
/** Longer than the test timeout: only a stop ends it, so the turn is still running while it is held. */
const ENDINGS = ['turn.finished', 'turn.failed', 'turn.stopped', 'turn.paused'];
const HELD: ScriptStep = { reply: finalAnswer('never sent', 'chat'), delayMs: 60_000 };

interface Entry {
  clientId: number;
  clock: number;
  state: any;
  /** Index of the frame it came in, among everything the socket received. */
  frame: number;
}

function awarenessFrame(clientId: number, clock: number, state: unknown): Uint8Array {
  const update = encoding.createEncoder();
  encoding.writeVarUint(update, 1);
  encoding.writeVarUint(update, clientId);
  encoding.writeVarUint(update, clock);
  encoding.writeVarString(update, JSON.stringify(state));
  const frame = encoding.createEncoder();
  encoding.writeVarUint(frame, 1);
  encoding.writeVarUint8Array(frame, encoding.toUint8Array(update));
  return encoding.toUint8Array(frame);
}

function awarenessReceived(watcher: Watcher): Entry[] {
  const entries: Entry[] = [];
  watcher.frames.forEach((frame, index) => {
    if (frame.kind !== 'binary') return;
    const decoder = decoding.createDecoder(frame.value);
    if (decoding.readVarUint(decoder) !== 1) return;
    const update = decoding.createDecoder(decoding.readVarUint8Array(decoder));
    const count = decoding.readVarUint(update);
    for (let i = 0; i < count; i++) {
      entries.push({ clientId: decoding.readVarUint(update), clock: decoding.readVarUint(update), state: JSON.parse(decoding.readVarString(update)), frame: index });
    }
  });
  return entries;
}

const aiEntries = (watcher: Watcher) => awarenessReceived(watcher).filter((e) => e.clientId === AI_AWARENESS.clientId);

/** The text a cursor resolves to in `client`'s copy of the draft, and the text before it. */
function resolve(client: YClient, cursor: any): { key: string | undefined; before: string } | null {
  const position = Y.createAbsolutePositionFromRelativePosition(Y.createRelativePositionFromJSON(cursor.anchor), client.doc);
  if (!position || !(position.type instanceof Y.Text)) return null;
  const text = position.type;
  const key = [...client.doc.getMap<Y.Map<unknown>>('files').entries()].find(([, map]) => map.get('text') === text)?.[0];
  return { key, before: text.toString().slice(0, position.index) };
}

async function aiTurn() {
  const project = await supportDeskProject();
  const { owner, base, member } = project;
  const sessionId = await stepSession(owner, base);
  const path = `${base}/ai/sessions/${sessionId}`;
  const before = await currentStep(owner, base);
  const written = `${before.markdown.trimEnd()}\n\nAlways quote the ticket number in the first line.\n\nKeep it short.\n`;
  const scripted = await useScriptedModel(owner, []);
  await scripted.queue({ toolCalls: [toolCall('builder.change.stage', { changeSet: stepChangeSet(written) }, 'call_stage')] });
  await scripted.queue(HELD);
  const editor = await member('editor', 'Edith');
  const watcher = await connect(editor, base, sessionId);
  const y = new YClient(watcher);
  // The draft editor is open: the socket shares a cursor, so it is shown the others' (the AI's too).
  await shareCursor(watcher, 5150, 'Edith');
  const accepted = await send(owner, path, 'Ask for the ticket number.');
  expect(accepted.status).toBe(202);
  return { ...project, sessionId, path, watcher, y, turnId: accepted.data.turnId as string, editor };
}

describe('the AI in the co-editor', () => {
  it('shows a co-editor the AI with a cursor at the end of its write while the turn runs, to a late joiner too, and removes it when the turn ends', async () => {
    const { owner, base, path, sessionId, watcher, y, turnId, member } = await aiTurn();
    const seen = await watcher.until(() => aiEntries(watcher).find((e) => e.state?.cursor), 'the AI cursor');
    expect(seen.state.user).toEqual({ name: 'AI', color: AI_AWARENESS.user.color, colorLight: AI_AWARENESS.user.colorLight, kind: 'ai' });
    expect(seen.state.cursorFile).toBe(STEP_KEY);
    // The cursor resolves in the co-editor's own copy of the draft: the written file, just after the last line written.
    const at = (await y.sync(() => resolve(y, seen.state.cursor), 'the cursor to resolve'))!;
    expect(at.key).toBe(STEP_KEY);
    expect(at.before.trimEnd().endsWith('Keep it short.')).toBe(true);
    // Still running: nothing has ended the turn yet.
    expect(watcher.events().filter((e) => e.turnId === turnId && ENDINGS.includes(e.type))).toEqual([]);

    // Someone who joins now is told where the AI is.
    const late = await connect(await member('viewer', 'Vera'), base, sessionId);
    // Only once it opens the co-editor (it has nowhere to show a cursor before).
    expect(aiEntries(late)).toEqual([]);
    late.socket.send(awarenessFrame(6160, 1, { user: { name: 'Vera' } }));
    const lateSeen = await late.until(() => aiEntries(late).find((e) => e.state?.cursor), 'the AI cursor for a late joiner');
    expect(lateSeen.state.cursorFile).toBe(STEP_KEY);

    // The turn ends (stopped): the AI's state becomes null for everyone, after every state it had.
    const stopped = await owner.post(`${path}/stop`);
    expect(stopped.status).toBeLessThan(300);
    await turnEnd(watcher, turnId);
    const last = await watcher.until(() => aiEntries(watcher).at(-1)?.state === null && aiEntries(watcher).at(-1), 'the AI state removed');
    const clocks = aiEntries(watcher).map((e) => e.clock);
    expect(clocks).toEqual([...clocks].sort((a, b) => a - b));
    expect(last.clock).toBe(Math.max(...clocks));
    await late.until(() => aiEntries(late).at(-1)?.state === null, 'the AI state removed for the late joiner');
    watcher.close();
    late.close();
  });

  it('refuses a socket that claims to be the AI, by its client id, its kind or its name, and relays none of it', async () => {
    const { owner, base, member } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const a = await connect(await member('editor', 'Mallory'), base, sessionId);
    const b = await connect(owner, base, sessionId);
    await shareCursor(b, 7170, 'Owner');
    const claims = [
      awarenessFrame(AI_AWARENESS.clientId, 1, { user: { name: 'Mallory' }, cursor: null }),
      awarenessFrame(4242, 1, { user: { ...AI_AWARENESS.user }, cursor: null }),
      awarenessFrame(4242, 2, { user: { name: ' ai ', color: '#000000' }, cursor: null }),
    ];
    for (const claim of claims) a.socket.send(claim);
    await a.until(() => a.texts().filter((m) => m.type === 'error' && m.code === 'AWARENESS_REFUSED').length === 3, 'three refusals');
    // The socket stays open and may still share its own cursor, which is the first thing the owner receives.
    a.socket.send(awarenessFrame(4242, 3, { user: { name: 'Mallory' }, cursor: null }));
    await b.until(() => awarenessReceived(b).find((e) => e.clientId === 4242), 'the honest cursor');
    expect(awarenessReceived(b).map((e) => [e.clientId, e.clock, e.state.user.name])).toEqual([[4242, 3, 'Mallory']]);
    expect(a.closed).toBeFalsy();
    a.close();
    b.close();
  });
});
