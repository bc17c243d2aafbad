/**
 * A read-only diff of two texts on `@codemirror/merge` (the co-editor's CodeMirror): side by side
 * (`MergeView`) or inline (`unifiedMergeView`), with line numbers, word-level highlights, unchanged
 * regions collapsed behind an expander, and a comment gutter on the staged side. CodeMirror loads
 * here, by dynamic import, only when a diff is first shown; it virtualises long files by itself.
 *
 * New text arrives as a transaction that replaces only the span that differs (never a new editor),
 * so the scroll position and the expanded regions stay where the reader left them.
 */
import { t } from '../../i18n/i18n.svelte.ts';
import type { EditorView as EditorViewType } from '@codemirror/view';
import { wordHighlight } from './word-highlight.ts';
import { commentIcon } from './comment-icon.ts';
import { stickyHeaderBottom } from '../../sticky-headers.ts';

export type MergeMode = 'split' | 'inline';

export interface CommentGutter {
  /** Open threads on a staged line (1-based). */
  threadsOn: (line: number) => number;
  /** Offer a comment on a staged line (a speech-bubble button shown on hover); absent: markers only. */
  oncomment?: ((line: number) => void) | undefined;
}

export interface MergeDiffOptions {
  before: string;
  after: string;
  mode: MergeMode;
  label: string;
  gutter: CommentGutter;
  /** The staged line the reader's cursor is on, after navigation. */
  oncursor?: (line: number) => void;
}

export interface MergeDiff {
  update(before: string, after: string): void;
  /** New threads or commenting rights: redraw the gutter. */
  refreshGutter(gutter: CommentGutter): void;
  /** Move to the next / previous changed chunk; false when there is none that way. */
  next(): boolean;
  previous(): boolean;
  destroy(): void;
}

/** The one change that turns `current` into `next`: the span between their common prefix and suffix. */
export function spanChange(current: string, next: string): { from: number; to: number; insert: string } | null {
  if (current === next) return null;
  let start = 0;
  const max = Math.min(current.length, next.length);
  while (start < max && current.charCodeAt(start) === next.charCodeAt(start)) start++;
  let end = 0;
  while (end < max - start && current.charCodeAt(current.length - 1 - end) === next.charCodeAt(next.length - 1 - end)) end++;
  return { from: start, to: current.length - end, insert: next.slice(start, next.length - end) };
}

export async function mountMergeDiff(host: HTMLElement, options: MergeDiffOptions): Promise<MergeDiff> {
  const [state, view, merge] = await Promise.all([
    import('@codemirror/state'),
    import('@codemirror/view'),
    import('@codemirror/merge'),
  ]);
  const { EditorState, StateEffect, StateField, ChangeSet, Text } = state;
  const { EditorView, GutterMarker, gutter, lineNumbers } = view;
  const { MergeView, unifiedMergeView, goToNextChunk, goToPreviousChunk, updateOriginalDoc, getOriginalDoc } = merge;

  const setGutter = StateEffect.define<CommentGutter>();
  const gutterState = StateField.define<CommentGutter>({
    create: () => options.gutter,
    update: (value, tr) => tr.effects.reduce((v, e) => (e.is(setGutter) ? e.value : v), value),
  });
  // The line under the pointer (0: none): its comment button shows, as on GitHub; every other
  // line's stays hidden, so nothing in the gutter reads as an added-line sign.
  const setHover = StateEffect.define<number>();
  const hoverState = StateField.define<number>({
    create: () => 0,
    update: (value, tr) => tr.effects.reduce((v, e) => (e.is(setHover) ? e.value : v), value),
  });
  const hoverLines = EditorView.domEventHandlers({
    mousemove(event, v) {
      const pos = v.posAtCoords({ x: event.clientX, y: event.clientY }, false);
      const line = pos === null ? 0 : v.state.doc.lineAt(pos).number;
      if (line !== v.state.field(hoverState)) v.dispatch({ effects: setHover.of(line) });
      return false;
    },
    mouseleave(_event, v) {
      if (v.state.field(hoverState) !== 0) v.dispatch({ effects: setHover.of(0) });
      return false;
    },
  });

  class CommentMarker extends GutterMarker {
    constructor(
      readonly line: number,
      readonly count: number,
      readonly oncomment: ((line: number) => void) | undefined,
      /** Under the pointer or the focused cursor: the comment button is shown. */
      readonly active: boolean,
    ) {
      super();
    }
    override eq(other: CommentMarker): boolean {
      return other.line === this.line && other.count === this.count && other.oncomment === this.oncomment && other.active === this.active;
    }
    override toDOM(): HTMLElement {
      const box = document.createElement('span');
      box.className = 'cm-comment-cell';
      if (this.count > 0) {
        const marker = document.createElement('span');
        marker.textContent = `💬${this.count}`;
        marker.title = t('diffView.threadsOnLine', { count: this.count, line: this.line });
        marker.dataset['testid'] = 'diff-thread-marker';
        marker.dataset['line'] = String(this.line);
        box.append(marker);
      }
      if (this.oncomment) {
        const button = document.createElement('button');
        button.type = 'button';
        button.className = this.active ? 'cm-comment-add is-active' : 'cm-comment-add';
        button.append(commentIcon());
        // CodeMirror hides its gutters from assistive technology, so the button is for the pointer;
        // the keyboard comments on the cursor's line from the button beside the diff (FileDiff.svelte).
        button.tabIndex = -1;
        button.setAttribute('aria-label', t('diffView.commentOnLine', { line: this.line }));
        button.dataset['testid'] = 'diff-comment-line';
        button.dataset['line'] = String(this.line);
        const oncomment = this.oncomment;
        button.addEventListener('click', () => oncomment(this.line));
        box.append(button);
      }
      return box;
    }
  }

  const commentGutter = gutter({
    class: 'cm-comment-gutter',
    lineMarker(v, block) {
      const g = v.state.field(gutterState);
      const line = v.state.doc.lineAt(block.from).number;
      const count = g.threadsOn(line);
      const active = line === v.state.field(hoverState) || (v.hasFocus && line === v.state.doc.lineAt(v.state.selection.main.head).number);
      return count > 0 || g.oncomment ? new CommentMarker(line, count, g.oncomment, active) : null;
    },
    lineMarkerChange: (update) =>
      update.selectionSet || update.focusChanged || update.transactions.some((tr) => tr.effects.some((e) => e.is(setGutter) || e.is(setHover))),
  });

  // While a move by chunk scrolls, the room its change needs above it for the bars pinned to the
  // top of the page: the library brings it to the window's edge, which is under them.
  let pinnedBars = 0;
  const pinnedBarsMargin = EditorView.scrollMargins.of(() => (pinnedBars > 0 ? { top: pinnedBars } : null));

  const common = [
    lineNumbers(),
    EditorView.editable.of(false),
    EditorState.readOnly.of(true),
    EditorView.lineWrapping,
    EditorView.contentAttributes.of({ 'aria-label': options.label }),
    // The merge view's own words ("N unchanged lines") in the reader's language.
    EditorState.phrases.of({ '$ unchanged lines': t('diffView.unchangedLines', { count: '$' }) }),
  ];
  const staged = [
    ...common,
    gutterState,
    hoverState,
    hoverLines,
    commentGutter,
    pinnedBarsMargin,
    EditorView.updateListener.of((u) => {
      if (u.selectionSet && options.oncursor) options.oncursor(u.state.doc.lineAt(u.state.selection.main.head).number);
    }),
  ];
  const collapse = { margin: 3, minSize: 6 };

  let staging: EditorViewType;
  let destroy: () => void;
  let setBefore: (before: string) => void;
  if (options.mode === 'split') {
    // Words inside changed lines are marked by word-highlight.ts (CJK by character), not the library.
    const words = (side: 'a' | 'b') => wordHighlight({ view, state, merge }, side);
    const mv = new MergeView({
      a: { doc: options.before, extensions: [...common, words('a')] },
      b: { doc: options.after, extensions: [...staged, words('b')] },
      parent: host,
      highlightChanges: false,
      gutter: true,
      collapseUnchanged: collapse,
    });
    staging = mv.b;
    // Each side's highlights need the other side's text, which exists only now.
    mv.a.dispatch({});
    mv.b.dispatch({});
    destroy = () => mv.destroy();
    setBefore = (before) => {
      const change = spanChange(mv.a.state.doc.toString(), before);
      if (change) mv.a.dispatch({ changes: change });
    };
  } else {
    const single = new EditorView({
      parent: host,
      state: EditorState.create({
        doc: options.after,
        extensions: [...staged, unifiedMergeView({ original: options.before, highlightChanges: true, gutter: true, mergeControls: false, collapseUnchanged: collapse })],
      }),
    });
    staging = single;
    destroy = () => single.destroy();
    setBefore = (before) => {
      const original = getOriginalDoc(single.state);
      const change = spanChange(original.toString(), before);
      if (!change) return;
      const changes = ChangeSet.of(change, original.length);
      single.dispatch({ effects: updateOriginalDoc.of({ doc: Text.of(before.split('\n')), changes }) });
    };
  }

  /** Move by a chunk, with room above it for the page's pinned bars while it scrolls into view (see `pinnedBars`). */
  let moves = 0;
  const move = (go: typeof goToNextChunk): boolean => {
    const token = ++moves;
    pinnedBars = stickyHeaderBottom(staging.dom);
    const moved = go({ state: staging.state, dispatch: (tr) => staging.dispatch(tr) });
    // CodeMirror scrolls on its next frame: the room is for that scroll only.
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        if (token === moves) pinnedBars = 0;
      }),
    );
    return moved;
  };

  return {
    update(before, after) {
      setBefore(before);
      const change = spanChange(staging.state.doc.toString(), after);
      if (change) staging.dispatch({ changes: change });
    },
    refreshGutter(g) {
      staging.dispatch({ effects: setGutter.of(g) });
    },
    next: () => move(goToNextChunk),
    previous: () => move(goToPreviousChunk),
    destroy,
  };
}
