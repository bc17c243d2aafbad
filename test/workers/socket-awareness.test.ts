/**
 * Awareness (cursor) frames through the real upgrade: the session relays only well-formed, small
 * states, each socket speaks only for its own client id, a flooding socket is closed while the
 * others go on, and a socket that leaves has its cursor removed for the others.
 */
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import { describe, expect, it } from 'vitest';
import { AWARENESS_BURST } from '../../shared/protocol.ts';
import { connect, shareCursor, supportDeskProject, stepSession, type Watcher } from './sessions.ts';

interface Entry {
  clientId: number;
  clock: number;
  state: unknown;
}

/** An awareness frame as y-protocols writes it: kind 1, then the update (count, then id, clock, JSON state). */
function awarenessFrame(entries: Entry[]): Uint8Array {
  const update = encoding.createEncoder();
  encoding.writeVarUint(update, entries.length);
  for (const entry of entries) {
    encoding.writeVarUint(update, entry.clientId);
    encoding.writeVarUint(update, entry.clock);
    encoding.writeVarString(update, JSON.stringify(entry.state));
  }
  const frame = encoding.createEncoder();
  encoding.writeVarUint(frame, 1);
  encoding.writeVarUint8Array(frame, encoding.toUint8Array(update));
  return encoding.toUint8Array(frame);
}

/** Every awareness entry a watcher received, in order. */
function awarenessReceived(watcher: Watcher): Entry[] {
  const entries: Entry[] = [];
  for (const frame of watcher.frames) {
    if (frame.kind !== 'binary') continue;
    const decoder = decoding.createDecoder(frame.value);
    if (decoding.readVarUint(decoder) !== 1) continue;
    const update = decoding.createDecoder(decoding.readVarUint8Array(decoder));
    const count = decoding.readVarUint(update);
    for (let i = 0; i < count; i++) {
      entries.push({ clientId: decoding.readVarUint(update), clock: decoding.readVarUint(update), state: JSON.parse(decoding.readVarString(update)) });
    }
  }
  return entries;
}

/** Two viewers and the owner on one session. */
async function threeSockets() {
  const { owner, base, member } = await supportDeskProject();
  const sessionId = await stepSession(owner, base);
  const a = await connect(await member('viewer', 'Ann'), base, sessionId);
  const b = await connect(await member('viewer', 'Bob'), base, sessionId);
  const o = await connect(owner, base, sessionId);
  return { a, b, o };
}

/** A well-formed cursor from `from` reaches `to` (and so anything `from` sent before it was handled). */
async function relayed(from: Watcher, to: Watcher, clientId: number, clock: number): Promise<void> {
  from.socket.send(awarenessFrame([{ clientId, clock, state: { cursor: { anchor: clock } } }]));
  await to.until(() => awarenessReceived(to).find((e) => e.clientId === clientId && e.clock === clock), `cursor ${clientId}@${clock}`);
}

describe('awareness frames', () => {
  it('closes a socket that sends an oversize state, and nobody receives it', async () => {
    const { a, b, o } = await threeSockets();
    await shareCursor(b, 202);
    a.socket.send(awarenessFrame([{ clientId: 101, clock: 1, state: { name: 'x'.repeat(5 * 1024) } }]));
    await a.until(() => a.closed, 'the close');
    expect(a.closed).toEqual({ code: 4413, reason: 'FRAME_TOO_LARGE' });
    await relayed(o, b, 303, 1);
    expect(awarenessReceived(b).map((e) => e.clientId)).toEqual([303]);
    b.close();
    o.close();
  });

  it('refuses a frame that speaks for another socket\'s client id, or for a second id of its own', async () => {
    const { a, b, o } = await threeSockets();
    await shareCursor(o, 999);
    await relayed(a, o, 111, 1);
    b.socket.send(awarenessFrame([{ clientId: 111, clock: 2, state: { cursor: 'spoofed' } }]));
    await b.until(() => b.texts().find((m) => m.type === 'error' && m.code === 'AWARENESS_REFUSED'), 'the refusal of a spoofed id');
    await relayed(b, o, 222, 1);
    b.socket.send(awarenessFrame([{ clientId: 222, clock: 2, state: {} }, { clientId: 333, clock: 1, state: {} }]));
    await b.until(() => b.texts().filter((m) => m.type === 'error' && m.code === 'AWARENESS_REFUSED').length === 2, 'the refusal of a second id');
    await relayed(b, o, 222, 3);
    expect(awarenessReceived(o).map((e) => `${e.clientId}@${e.clock}`)).toEqual(['111@1', '222@1', '222@3']);
    expect(b.closed).toBeNull();
    for (const w of [a, b, o]) w.close();
  });

  it('closes a flooding socket with RATE_LIMITED; the others carry on', async () => {
    const { a, b, o } = await threeSockets();
    await shareCursor(o, 999);
    const flood = AWARENESS_BURST * 5;
    for (let clock = 1; clock <= flood && a.closed === null; clock++) {
      try {
        a.socket.send(awarenessFrame([{ clientId: 404, clock, state: { cursor: clock } }]));
      } catch {
        break;
      }
    }
    await a.until(() => a.closed, 'the flooding socket to close');
    expect(a.closed).toEqual({ code: 4429, reason: 'RATE_LIMITED' });
    await relayed(b, o, 505, 1);
    expect(awarenessReceived(o).filter((e) => e.clientId === 404 && e.state !== null).length).toBeLessThan(flood);
    expect(o.closed).toBeNull();
    expect(b.closed).toBeNull();
    b.close();
    o.close();
  });

  it('removes the cursor of a socket that leaves', async () => {
    const { a, b, o } = await threeSockets();
    await shareCursor(b, 888);
    await relayed(a, b, 777, 4);
    a.close();
    const gone = await b.until(() => awarenessReceived(b).find((e) => e.clientId === 777 && e.state === null), 'the removal of 777');
    expect(gone.clock).toBeGreaterThan(4);
    b.close();
    o.close();
  });
});

describe('who receives cursors', () => {
  /** The latest presence list `watcher` received. */
  const present = (watcher: Watcher): Array<{ name: string; file: string | null }> => watcher.texts().findLast((m) => m.type === 'presence')?.present ?? [];

  it('relays a cursor only to the sockets in the co-editor; presence still tells everyone who is here; one that closes its editor stops receiving them and may open it again', async () => {
    const { a, b, o } = await threeSockets();
    // Ann and Bob have the draft editor open; the owner's workbench has not.
    await shareCursor(a, 111, 'Ann');
    await shareCursor(b, 222, 'Bob');
    for (let clock = 2; clock <= 11; clock++) a.socket.send(awarenessFrame([{ clientId: 111, clock, state: { user: { name: 'Ann' }, cursor: { anchor: clock } } }]));
    await b.until(() => awarenessReceived(b).find((e) => e.clientId === 111 && e.clock === 11), "Ann's last cursor");
    // A frame Ann sends after her cursors, which everyone hears of: by then the owner had every cursor meant for them.
    a.send({ type: 'presence', file: 'asset:ann.md' });
    await o.until(() => present(o).some((p) => p.name === 'Ann' && p.file === 'asset:ann.md'), "Ann's file in the owner's presence");
    expect(awarenessReceived(o)).toEqual([]);
    expect(present(o).map((p) => p.name).sort()).toEqual(['Ann', 'Bob', 'Owner']);
    // Ann's first state went out before Bob joined: he learns it from her next one (the app's editor shares again when someone new arrives).
    expect(awarenessReceived(b).filter((e) => e.clientId === 111).map((e) => e.clock)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);

    // Bob closes his editor: his client removes itself; Ann sees his cursor go, and Bob gets no more of hers.
    b.socket.send(awarenessFrame([{ clientId: 222, clock: 2, state: null }]));
    await a.until(() => awarenessReceived(a).find((e) => e.clientId === 222 && e.state === null), "Bob's cursor removed");
    const bobHad = awarenessReceived(b).length;
    a.socket.send(awarenessFrame([{ clientId: 111, clock: 12, state: { user: { name: 'Ann' }, cursor: { anchor: 12 } } }]));
    a.send({ type: 'presence', file: 'asset:ann-2.md' });
    await b.until(() => present(b).some((p) => p.name === 'Ann' && p.file === 'asset:ann-2.md'), "Ann's next file in Bob's presence");
    expect(awarenessReceived(b)).toHaveLength(bobHad);

    // He opens it again: a new editor is a new client id, and it is his to use; Ann's cursor comes when she shares it again.
    await shareCursor(b, 333, 'Bob');
    await a.until(() => awarenessReceived(a).find((e) => e.clientId === 333), "Bob's new cursor");
    a.socket.send(awarenessFrame([{ clientId: 111, clock: 13, state: { user: { name: 'Ann' }, cursor: { anchor: 13 } } }]));
    await b.until(() => awarenessReceived(b).find((e) => e.clientId === 111 && e.clock === 13), "Ann's cursor again");
    expect(b.texts().filter((m) => m.type === 'error')).toEqual([]);
    expect(awarenessReceived(o)).toEqual([]);
    for (const w of [a, b, o]) w.close();
  });
});
