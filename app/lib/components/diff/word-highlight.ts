/**
 * The word highlights inside the changed chunks of a side-by-side diff, by the product's own word
 * splitter (shared/text/cjk-words.ts), where every Han, Kana and Hangul character is a word.
 *
 * Why not `diffConfig.override`: @codemirror/merge 6.12.3 passes the override's ranges through its
 * `makePresentable`, which widens every change to the surrounding run of letters — and a Chinese
 * sentence is one run — so a one-character edit would still light up the whole clause. Here the
 * library keeps finding the changed lines (chunks) and this plugin marks the words inside them
 * with the library's own `cm-changedText` class (its theme colours both sides), in place of the
 * library's `highlightChanges`.
 */
import type { Extension, Text } from '@codemirror/state';
import type { Decoration as DecorationType, DecorationSet, EditorView as EditorViewType, ViewUpdate } from '@codemirror/view';
import { wordChanges } from '../../../../shared/text/cjk-words.ts';

type ViewModule = typeof import('@codemirror/view');
type StateModule = typeof import('@codemirror/state');
type MergeModule = typeof import('@codemirror/merge');

/** A one-sided view of a chunk: the changed words as ranges of this side's document. */
export function changedWordRanges(side: 'a' | 'b', a: string, b: string, offset: number): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (const change of wordChanges(a, b)) {
    const [from, to] = side === 'a' ? [change.fromA, change.toA] : [change.fromB, change.toB];
    if (to > from) ranges.push([offset + from, offset + to]);
  }
  return ranges;
}

/** The extension for one editor of a `MergeView` (`side` is which one). */
export function wordHighlight(modules: { view: ViewModule; state: StateModule; merge: MergeModule }, side: 'a' | 'b'): Extension {
  const { Decoration, ViewPlugin } = modules.view;
  const { RangeSetBuilder } = modules.state;
  const { getChunks, mergeViewSiblings } = modules.merge;
  const changed = Decoration.mark({ class: 'cm-changedText' });

  function otherDoc(view: EditorViewType): Text | null {
    const siblings = mergeViewSiblings(view);
    // Undefined while the MergeView is still building its second editor.
    const other = siblings ? (side === 'a' ? siblings.b : siblings.a) : undefined;
    return other?.state.doc ?? null;
  }

  function build(view: EditorViewType) {
    const builder = new RangeSetBuilder<DecorationType>();
    const info = getChunks(view.state);
    const other = otherDoc(view);
    if (!info || !other) return { decorations: builder.finish(), complete: false };
    const own = view.state.doc;
    const [docA, docB] = side === 'a' ? [own, other] : [other, own];
    const { from, to } = view.viewport;
    for (const chunk of info.chunks) {
      const [start, end] = side === 'a' ? [chunk.fromA, chunk.toA] : [chunk.fromB, chunk.toB];
      if (start >= to) break;
      if (end < from) continue;
      // endA/endB leave out the chunk's final line break, which no highlight should cover.
      const a = docA.sliceString(chunk.fromA, chunk.endA);
      const b = docB.sliceString(chunk.fromB, chunk.endB);
      for (const [rangeFrom, rangeTo] of changedWordRanges(side, a, b, start)) builder.add(rangeFrom, rangeTo, changed);
    }
    return { decorations: builder.finish(), complete: true };
  }

  return ViewPlugin.fromClass(
    class {
      decorations: DecorationSet;
      complete: boolean;
      constructor(view: EditorViewType) {
        ({ decorations: this.decorations, complete: this.complete } = build(view));
      }
      update(update: ViewUpdate) {
        const chunksMoved = getChunks(update.startState)?.chunks !== getChunks(update.state)?.chunks;
        if (!this.complete || chunksMoved || update.docChanged || update.viewportChanged) {
          ({ decorations: this.decorations, complete: this.complete } = build(update.view));
        }
      }
    },
    { decorations: (plugin) => plugin.decorations },
  );
}
