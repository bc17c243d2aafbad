/** Where the AI's write ended, from the Yjs events of its transaction: the AI's cursor position. */
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { lastWriteOf, type AiWrite } from './ai-awareness.ts';

function staged(content: string): Y.Doc {
  const doc = new Y.Doc();
  doc.transact(() => {
    const entry = new Y.Map<unknown>();
    const text = new Y.Text(content);
    entry.set('text', text);
    doc.getMap('files').set('asset:assets/a.md', entry);
  });
  return doc;
}

/** The write `change` makes, as the observer of the `files` map sees it. */
function writeOf(doc: Y.Doc, change: (files: Y.Map<Y.Map<unknown>>) => void): AiWrite | null {
  const files = doc.getMap<Y.Map<unknown>>('files');
  let seen: AiWrite | null = null;
  const observer = (events: Array<Y.YEvent<Y.AbstractType<unknown>>>) => {
    seen = lastWriteOf(events, files as Y.Map<unknown>);
  };
  files.observeDeep(observer);
  doc.transact(() => change(files), 'ai');
  files.unobserveDeep(observer);
  return seen;
}

describe('the end of the AI\'s write', () => {
  it('is after the last character inserted, or where it last deleted', () => {
    const doc = staged('one\ntwo\nthree\n');
    const text = () => doc.getMap<Y.Map<unknown>>('files').get('asset:assets/a.md')!.get('text') as Y.Text;
    expect(writeOf(doc, () => text().insert(4, 'TWO'))).toEqual({ key: 'asset:assets/a.md', index: 7 });
    expect(writeOf(doc, () => text().delete(0, 4))).toEqual({ key: 'asset:assets/a.md', index: 0 });
    // A replaced middle (delete then insert, as the overlay stages a rewrite) ends after the new text.
    expect(writeOf(doc, () => {
      text().delete(3, 3);
      text().insert(3, 'abcdef');
    })).toEqual({ key: 'asset:assets/a.md', index: 9 });
  });

  it('is the end of a file created in the same write, and nothing for metadata only', () => {
    const doc = staged('x');
    expect(writeOf(doc, (files) => {
      const entry = new Y.Map<unknown>();
      entry.set('text', new Y.Text('# New\n\nbody\n'));
      files.set('asset:assets/new.md', entry);
    })).toEqual({ key: 'asset:assets/new.md', index: 12 });
    expect(writeOf(doc, (files) => files.get('asset:assets/a.md')!.set('deleted', true))).toBeNull();
  });
});
