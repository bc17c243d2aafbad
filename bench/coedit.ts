/**
 * The co-editing row of `npm run bench` (alone: `npm exec -- node bench/coedit.ts`): the server's
 * work per keystroke on a 2 MB staged draft. Ours is what the session object runs on each Yjs
 * update from a socket, minus storage and sockets: `checkCoEdit` (durable-objects/ai-session/
 * co-edit-check.ts) then `Y.applyUpdate` on the overlay document. The peer is a bare y-protocols
 * relay that keeps the document (as y-websocket's server does): `readSyncMessage` → `Y.applyUpdate`,
 * no checks. Both run in this Node process on the same keystrokes, in alternating rounds; the
 * goal is ≤ 1.5×. (The broadcast and the SQLite append — behind the relay, a burst in one commit:
 * overlay-doc.ts — are not part of this row; the peer is not a second workerd Durable Object. The
 * live rows of bench/floor-rows.ts time the whole frame path against one.)
 */
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import { checkCoEdit } from '../durable-objects/ai-session/overlay/co-edit-check.ts';
import { markdownTable, median, pairedRow } from './table.ts';
import type { ResultRow } from './table.ts';

const MAX_ENTRY_CHARS = 512 * 1024;
const ENTRIES = 4;
const LINE = 'A line of the staged draft that a person may fix while the AI writes it.\n';
const ROUNDS = 5;
const PER_ROUND = 400;
const WARMUP = 200;

/** A seeded generator, so every run types the same keystrokes. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function stagedDraft(): Y.Doc {
  const doc = new Y.Doc();
  const body = LINE.repeat(Math.floor((MAX_ENTRY_CHARS - 4096) / LINE.length));
  doc.transact(() => {
    const files = doc.getMap<Y.Map<unknown>>('files');
    for (let i = 0; i < ENTRIES; i++) {
      const entry = new Y.Map<unknown>();
      const text = new Y.Text();
      entry.set('text', text);
      entry.set('deleted', false);
      entry.set('baseRevision', 1);
      entry.set('baseHash', null);
      files.set(`asset:assets/draft-${i}.md`, entry);
      text.insert(0, body);
    }
  });
  return doc;
}

/** Keystrokes (one character typed or deleted at a time) from a person's synced copy, as socket frames. */
function keystrokes(draft: Y.Doc, count: number): Uint8Array[] {
  const person = new Y.Doc();
  Y.applyUpdate(person, Y.encodeStateAsUpdate(draft));
  const files = person.getMap<Y.Map<unknown>>('files');
  const texts = [...files.values()].map((entry) => entry.get('text') as Y.Text);
  const next = random(42);
  const frames: Uint8Array[] = [];
  person.on('update', (update: Uint8Array) => {
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, 0);
    syncProtocol.writeUpdate(encoder, update);
    frames.push(encoding.toUint8Array(encoder));
  });
  for (let i = 0; i < count; i++) {
    const text = texts[Math.floor(next() * texts.length)]!;
    const at = Math.floor(next() * text.length);
    if (i % 5 === 4) text.delete(at, 1);
    else text.insert(at, 'x');
  }
  return frames;
}

/** Ours: read the frame, check the update against the document, apply it. */
function oursApply(doc: Y.Doc, frame: Uint8Array): void {
  const decoder = decoding.createDecoder(frame);
  decoding.readVarUint(decoder);
  decoding.readVarUint(decoder);
  const update = decoding.readVarUint8Array(decoder);
  const check = checkCoEdit(doc, doc.getMap('files'), update, false, MAX_ENTRY_CHARS);
  if (!check.ok) throw new Error(`bench: a keystroke was refused (${check.code})`);
  Y.applyUpdate(doc, update, 'socket');
}

/** The peer: a y-protocols relay that keeps the document and checks nothing. */
function peerApply(doc: Y.Doc, frame: Uint8Array): void {
  const decoder = decoding.createDecoder(frame);
  decoding.readVarUint(decoder);
  syncProtocol.readSyncMessage(decoder, encoding.createEncoder(), doc, 'socket');
}

export function coeditRow(): ResultRow {
  const draft = stagedDraft();
  const frames = keystrokes(draft, WARMUP + ROUNDS * PER_ROUND);
  const ours = new Y.Doc();
  const peer = new Y.Doc();
  const snapshot = Y.encodeStateAsUpdate(draft);
  Y.applyUpdate(ours, snapshot);
  Y.applyUpdate(peer, snapshot);
  let at = 0;
  for (; at < WARMUP; at++) {
    oursApply(ours, frames[at]!);
    peerApply(peer, frames[at]!);
  }
  const samples = { ours: [] as number[], peer: [] as number[] };
  const roundRatios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = at;
    const time = (apply: (doc: Y.Doc, frame: Uint8Array) => void, doc: Y.Doc, into: number[]) => {
      const own: number[] = [];
      for (let i = start; i < start + PER_ROUND; i++) {
        const t = performance.now();
        apply(doc, frames[i]!);
        own.push(performance.now() - t);
      }
      into.push(...own);
      return median(own);
    };
    // Alternate which side goes first, so a burst of load lands on both.
    const [o, p] = round % 2 === 0 ? [time(oursApply, ours, samples.ours), time(peerApply, peer, samples.peer)] : (() => {
      const pp = time(peerApply, peer, samples.peer);
      return [time(oursApply, ours, samples.ours), pp];
    })();
    roundRatios.push(o / p);
    at += PER_ROUND;
  }
  if (ours.getMap('files').size !== ENTRIES || Y.encodeStateAsUpdate(ours).byteLength !== Y.encodeStateAsUpdate(peer).byteLength) {
    throw new Error('bench: the two sides did not end with the same document');
  }
  return pairedRow(
    'co-edit keystroke, 2 MB draft (goal ≤ 1.5×)',
    'a bare y-protocols relay keeping the document: readSyncMessage → Y.applyUpdate, no checks (same process)',
    samples,
    roundRatios,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(markdownTable([coeditRow()]));
}
