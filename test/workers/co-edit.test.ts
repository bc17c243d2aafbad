/**
 * Co-editing updates against a large staged draft, checked inside the session object: a keystroke
 * (insert, delete, replace at the size cap) is accepted and costs no read of the draft's text;
 * anything that is not a text edit of an existing entry is refused and leaves the document as it was.
 */
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';
import { MAX_ENTRY_CHARS } from '../../durable-objects/ai-session/overlay/overlay-doc.ts';
import { stepSession, supportDeskProject } from './sessions.ts';

const KEYS = [0, 1, 2, 3].map((i) => `asset:assets/big-${i}.md`);
const LINE = 'A line of the staged draft that a person may fix while the AI writes.\n';
/** About 2 MB of staged text over four entries, each just under the per-entry cap. */
const BIG = LINE.repeat(Math.floor((MAX_ENTRY_CHARS - 64) / LINE.length));

type Overlay = AiSessionDurableObject['core']['overlay'];

async function onLargeDraft<T>(run: (overlay: Overlay, peer: Y.Doc) => T): Promise<T> {
  const { owner, base } = await supportDeskProject();
  const sessionId = await stepSession(owner, base);
  const object = env.AI_SESSION.get(env.AI_SESSION.idFromName(sessionId));
  return runInDurableObject(object, (instance: AiSessionDurableObject) => {
    const overlay = instance.core.overlay;
    overlay.stage(KEYS.map((key) => ({ key, deleted: false, content: BIG, baseRevision: 1, baseHash: null })), 'test');
    // A person's browser: the same document, synced.
    const peer = new Y.Doc();
    Y.applyUpdate(peer, Y.encodeStateAsUpdate(overlay.doc));
    return run(overlay, peer);
  });
}

/** The update `change` makes on the peer. */
function edit(peer: Y.Doc, change: (files: Y.Map<Y.Map<unknown>>) => void): Uint8Array {
  const updates: Uint8Array[] = [];
  const listen = (u: Uint8Array) => updates.push(u);
  peer.on('update', listen);
  change(peer.getMap<Y.Map<unknown>>('files'));
  peer.off('update', listen);
  return Y.mergeUpdates(updates);
}

const textOf = (files: Y.Map<Y.Map<unknown>>, key: string) => files.get(key)!.get('text') as Y.Text;

describe('co-editing a large staged draft', () => {
  it('accepts a keystroke, a deletion and a replace at the cap without reading the draft text', async () => {
    const result = await onLargeDraft((overlay, peer) => {
      // Count every time a Y.Text is turned into a string while the updates are checked.
      const proto = Y.Text.prototype as { toString(): string };
      const original = proto.toString;
      let reads = 0;
      proto.toString = function (this: Y.Text) {
        reads++;
        return original.call(this);
      };
      try {
        const typed = overlay.applyClientUpdate(edit(peer, (f) => textOf(f, KEYS[2]!).insert(1000, 'x')), 'socket', false);
        const deleted = overlay.applyClientUpdate(edit(peer, (f) => textOf(f, KEYS[1]!).delete(10, 5)), 'socket', false);
        const atCap = MAX_ENTRY_CHARS - BIG.length;
        const filled = overlay.applyClientUpdate(edit(peer, (f) => textOf(f, KEYS[0]!).insert(0, 'y'.repeat(atCap))), 'socket', false);
        const replaced = overlay.applyClientUpdate(
          edit(peer, (f) => peer.transact(() => { textOf(f, KEYS[0]!).delete(0, 3); textOf(f, KEYS[0]!).insert(0, 'zzz'); })),
          'socket',
          false,
        );
        return { typed, deleted, filled, replaced, reads };
      } finally {
        proto.toString = original;
      }
    });
    expect(result).toEqual({
      typed: { ok: true, changed: true },
      deleted: { ok: true, changed: true },
      filled: { ok: true, changed: true },
      replaced: { ok: true, changed: true },
      reads: 0,
    });
  });

  it('applies the accepted keystrokes to the server document', async () => {
    const after = await onLargeDraft((overlay, peer) => {
      overlay.applyClientUpdate(edit(peer, (f) => textOf(f, KEYS[3]!).insert(LINE.length, 'FIXED ')), 'socket', false);
      overlay.applyClientUpdate(edit(peer, (f) => textOf(f, KEYS[3]!).delete(0, 2)), 'socket', false);
      return overlay.entry(KEYS[3]!)!.content.slice(0, LINE.length + 20);
    });
    expect(after).toBe(`${LINE.slice(2)}FIXED ${LINE}`.slice(0, LINE.length + 20));
  });

  it('refuses a new root type, a new or removed entry, metadata, formatting, nested types, growth past the cap and unknown origins', async () => {
    const results = await onLargeDraft((overlay, peer) => {
      const before = Y.encodeStateVector(overlay.doc);
      // Each attempt is made on a fresh copy, so one refusal does not hide behind another.
      const fresh = () => {
        const doc = new Y.Doc();
        Y.applyUpdate(doc, Y.encodeStateAsUpdate(overlay.doc));
        return doc;
      };
      const attempts: Record<string, Uint8Array> = { rootType: edit(peer, () => peer.getText('evil').insert(0, 'x')) };
      let doc = fresh();
      attempts.rootMap = edit(doc, () => doc.getMap('other').set('k', 1));
      doc = fresh();
      attempts.newEntry = edit(doc, (f) => f.set('asset:assets/evil.md', new Y.Map()));
      doc = fresh();
      attempts.removeEntry = edit(doc, (f) => f.delete(KEYS[0]!));
      doc = fresh();
      attempts.metadata = edit(doc, (f) => f.get(KEYS[0]!)!.set('baseRevision', 99));
      doc = fresh();
      attempts.formatting = edit(doc, (f) => textOf(f, KEYS[0]!).format(0, 4, { bold: true }));
      doc = fresh();
      attempts.embed = edit(doc, (f) => textOf(f, KEYS[0]!).insertEmbed(0, { image: 'x' }));
      doc = fresh();
      attempts.nested = edit(doc, (f) => textOf(f, KEYS[0]!).insertEmbed(0, new Y.Map()));
      doc = fresh();
      attempts.tooLarge = edit(doc, (f) => textOf(f, KEYS[0]!).insert(0, 'y'.repeat(MAX_ENTRY_CHARS - BIG.length + 1)));
      // An edit on top of a change the server never received.
      doc = fresh();
      edit(doc, (f) => textOf(f, KEYS[0]!).insert(0, 'unseen '));
      attempts.unknownOrigin = edit(doc, (f) => textOf(f, KEYS[0]!).insert(3, 'typed after it'));
      const codes: Record<string, string> = {};
      for (const [name, update] of Object.entries(attempts)) {
        const result = overlay.applyClientUpdate(update, 'socket', false);
        codes[name] = result.ok ? 'accepted' : result.code;
      }
      return { codes, untouched: Buffer.from(Y.encodeStateVector(overlay.doc)).equals(Buffer.from(before)), keys: overlay.entries().map((e) => e.key), shares: [...overlay.doc.share.keys()] };
    });
    expect(results.codes).toEqual({
      rootType: 'YJS_FORBIDDEN_CHANGE',
      rootMap: 'YJS_FORBIDDEN_CHANGE',
      newEntry: 'YJS_FORBIDDEN_CHANGE',
      removeEntry: 'YJS_FORBIDDEN_CHANGE',
      metadata: 'YJS_FORBIDDEN_CHANGE',
      formatting: 'YJS_FORBIDDEN_CHANGE',
      embed: 'YJS_FORBIDDEN_CHANGE',
      nested: 'YJS_FORBIDDEN_CHANGE',
      tooLarge: 'YJS_TOO_LARGE',
      unknownOrigin: 'YJS_MALFORMED',
    });
    expect(results.untouched).toBe(true);
    expect(results.keys).toEqual([...KEYS].sort());
    expect(results.shares).toEqual(['files']);
  });

  it("lets a viewer's echo of the document through as a no-op and refuses a viewer's keystroke", async () => {
    const results = await onLargeDraft((overlay, peer) => {
      const echo = overlay.applyClientUpdate(Y.encodeStateAsUpdate(peer), 'viewer', true);
      const typed = overlay.applyClientUpdate(edit(peer, (f) => textOf(f, KEYS[0]!).insert(0, 'VIEWER')), 'viewer', true);
      return { echo, typed: typed.ok ? 'accepted' : typed.code, content: overlay.entry(KEYS[0]!)!.content.startsWith('VIEWER') };
    });
    expect(results).toEqual({ echo: { ok: true, changed: false }, typed: 'YJS_FORBIDDEN_CHANGE', content: false });
  });
});
