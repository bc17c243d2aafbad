/**
 * Checks one co-editing update from a socket against the overlay document by reading only what the
 * update names: its structs (Y.decodeUpdate) and the few existing items they hang on (origin,
 * right origin, parent) or delete. The work grows with the update, not with the draft — a
 * keystroke on a 2 MB draft costs about what it costs on a 2 KB one (bench/coedit.ts), where
 * trying the update on a re-encoded copy of the document cost milliseconds per keystroke.
 *
 * What a person may change is the text of an entry that already exists and is not staged as
 * deleted: inserted content must be plain text (or already-deleted text) whose parent is an entry's
 * `text`; deletions may only remove text items. Anything else — a map write (new entry, metadata),
 * a root type, a nested type, formatting or embeds, an item whose parent the server cannot find —
 * is refused before the document is touched.
 */
import * as Y from 'yjs';

export type CoEditCheck =
  /** `changed`: the update adds or deletes something the document does not have yet. */
  | { ok: true; changed: boolean }
  | { ok: false; code: 'YJS_MALFORMED' | 'YJS_FORBIDDEN_CHANGE' | 'YJS_TOO_LARGE'; message: string };

type Struct = Y.Item | Y.GC | InstanceType<typeof Y.Skip>;
type Id = { client: number; clock: number };
type Decoded = { structs: Struct[]; ds: { clients: Map<number, Array<{ clock: number; len: number }>> } };

const FORBIDDEN = 'Only the text of staged files can be edited; files are added or removed by staging a change set.';
const MISSING = 'The document update depends on changes the server does not have.';

/** The entry a text belongs to, or null when `type` is not the `text` of an entry of `files`. */
function entryOfText(type: unknown, files: Y.AbstractType<any>): { key: string; map: Y.Map<unknown> } | null {
  if (!(type instanceof Y.Text)) return null;
  const textItem = type._item;
  if (!textItem || textItem.deleted || textItem.parentSub !== 'text') return null;
  const map = textItem.parent;
  if (!(map instanceof Y.Map) || map.get('text') !== type) return null;
  const entryItem = map._item;
  if (!entryItem || entryItem.deleted || entryItem.parent !== files || entryItem.parentSub === null) return null;
  return { key: entryItem.parentSub, map };
}

/** The existing struct holding `id`, or undefined when the server does not have that clock. */
function existing(doc: Y.Doc, id: Id): Y.Item | Y.GC | undefined {
  if (id.clock >= Y.getState(doc.store, id.client)) return undefined;
  const structs = doc.store.clients.get(id.client)!;
  return structs[Y.findIndexSS(structs, id.clock)];
}

export function checkCoEdit(doc: Y.Doc, files: Y.AbstractType<any>, update: Uint8Array, readOnly: boolean, maxChars: number): CoEditCheck {
  let decoded: Decoded;
  try {
    decoded = Y.decodeUpdate(update) as unknown as Decoded;
  } catch {
    return { ok: false, code: 'YJS_MALFORMED', message: 'The document update could not be read.' };
  }

  // The structs the document lacks, per client in clock order; a gap before one means it depends
  // on changes the server never saw (Yjs would park it as pending).
  const fresh = new Map<number, Array<Y.Item | Y.GC>>();
  let missing = false;
  const known = new Map<number, number>();
  for (const struct of decoded.structs) {
    const client = struct.id.client;
    let state = known.get(client) ?? Y.getState(doc.store, client);
    if (struct instanceof Y.Skip) continue;
    if (struct.id.clock > state) missing = true;
    if (struct.id.clock + struct.length > state) {
      const list = fresh.get(client) ?? [];
      list.push(struct);
      fresh.set(client, list);
      state = struct.id.clock + struct.length;
    }
    known.set(client, state);
  }
  const findFresh = (id: Id): Y.Item | Y.GC | undefined =>
    fresh.get(id.client)?.find((s) => id.clock >= s.id.clock && id.clock < s.id.clock + s.length);

  // Deletions the document has not applied yet: every target must exist and be text.
  const deletes: Array<{ item: Y.Item; len: number }> = [];
  for (const [client, ranges] of decoded.ds.clients) {
    for (const range of ranges) {
      const end = range.clock + range.len;
      for (let clock = range.clock; clock < end; ) {
        const old = existing(doc, { client, clock });
        const struct = old ?? findFresh({ client, clock });
        if (!struct) {
          missing = true;
          break;
        }
        const next = struct.id.clock + struct.length;
        // An item deleted in the update that inserts it is checked as a fresh item.
        if (old instanceof Y.Item && !old.deleted) deletes.push({ item: old, len: Math.min(end, next) - clock });
        clock = next;
      }
    }
  }

  const changed = fresh.size > 0 || deletes.length > 0;
  if (!changed && !missing) return { ok: true, changed: false };
  if (readOnly) return { ok: false, code: 'YJS_FORBIDDEN_CHANGE', message: 'Viewers can watch the staged changes but not edit them.' };
  if (missing) return { ok: false, code: 'YJS_MALFORMED', message: MISSING };

  // The text each fresh item goes into: named by its parent id, or inherited from its origin or
  // right origin (an existing item, or another fresh one).
  const parentOf = new Map<Y.Item, Y.Text | null>();
  const resolve = (item: Y.Item, depth: number): Y.Text | null => {
    if (parentOf.has(item)) return parentOf.get(item)!;
    parentOf.set(item, null); // a cycle resolves to nothing
    let parent: Y.Text | null = null;
    if (item.parentSub === null && typeof item.parent !== 'string' && depth < 10_000) {
      const anchor = (item.parent as Id | null) ?? item.origin ?? item.rightOrigin;
      const target = anchor ? (existing(doc, anchor) ?? findFresh(anchor)) : undefined;
      if (target instanceof Y.Item) {
        if (item.parent) {
          parent = target.content instanceof Y.ContentType && !target.deleted ? (target.content.type as Y.Text) : null;
        } else if (target.parentSub === null) {
          parent = fresh.get(target.id.client)?.includes(target) ? resolve(target, depth + 1) : (target.parent as Y.Text);
        }
      }
    }
    parentOf.set(item, parent);
    return parent;
  };

  const growth = new Map<Y.Text, number>();
  for (const list of fresh.values()) {
    for (const struct of list) {
      if (struct instanceof Y.GC) continue; // collected content: nothing visible
      const content = struct.content;
      if (!(content instanceof Y.ContentString) && !(content instanceof Y.ContentDeleted)) {
        return { ok: false, code: 'YJS_FORBIDDEN_CHANGE', message: FORBIDDEN };
      }
      const text = resolve(struct, 0);
      const entry = entryOfText(text, files);
      if (!text || !entry) return { ok: false, code: 'YJS_FORBIDDEN_CHANGE', message: FORBIDDEN };
      if (content instanceof Y.ContentString) {
        if (entry.map.get('deleted') === true) {
          return { ok: false, code: 'YJS_FORBIDDEN_CHANGE', message: `${entry.key} is staged as deleted and cannot be edited.` };
        }
        growth.set(text, (growth.get(text) ?? 0) + content.getLength());
      }
    }
  }
  for (const { item, len } of deletes) {
    if (item.parentSub !== null || !entryOfText(item.parent, files)) return { ok: false, code: 'YJS_FORBIDDEN_CHANGE', message: FORBIDDEN };
    const text = item.parent as Y.Text;
    if (item.countable) growth.set(text, (growth.get(text) ?? 0) - len);
  }
  for (const [text, delta] of growth) {
    if (text.length + delta > maxChars) {
      return { ok: false, code: 'YJS_TOO_LARGE', message: `${entryOfText(text, files)!.key} would be larger than ${maxChars} characters.` };
    }
  }
  return { ok: true, changed: true };
}
