/**
 * The CodeMirror 6 view behind CodeEditor.svelte, in its own module so that CodeMirror is downloaded
 * only when an editor is shown (CodeEditor imports this with `import()`), never on a page's first load.
 */
import { Compartment, EditorState, type Extension } from '@codemirror/state';
import {
  EditorView,
  drawSelection,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
} from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';

export type EditorLanguage = 'markdown' | 'json' | 'text';

export interface CodeEditorOptions {
  parent: HTMLElement;
  value: string;
  language: EditorLanguage;
  label: string;
  readonly: boolean;
  height: string;
  onChange?: ((value: string) => void) | undefined;
}

export interface CodeEditorView {
  /** Replaces the document unless it already equals `value` (the editor's own edits). */
  setValue(value: string): void;
  setReadonly(readonly: boolean): void;
  destroy(): void;
}

/** Language support loads on demand, so pages without an editor never download the parsers. */
async function languageExtension(lang: EditorLanguage): Promise<Extension> {
  if (lang === 'markdown') return (await import('@codemirror/lang-markdown')).markdown();
  if (lang === 'json') return (await import('@codemirror/lang-json')).json();
  return [];
}

function editableExtension(isReadonly: boolean): Extension {
  return [EditorState.readOnly.of(isReadonly), EditorView.editable.of(!isReadonly)];
}

export function createCodeEditor(options: CodeEditorOptions): CodeEditorView {
  const editable = new Compartment();
  const syntax = new Compartment();
  // No indentWithTab: Tab keeps moving focus, so the editor never traps keyboard users.
  const extensions: Extension[] = [
    lineNumbers(),
    highlightActiveLineGutter(),
    highlightSpecialChars(),
    history(),
    drawSelection(),
    indentOnInput(),
    bracketMatching(),
    highlightActiveLine(),
    syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
    keymap.of([...defaultKeymap, ...historyKeymap]),
    EditorView.lineWrapping,
    syntax.of([]),
    editable.of(editableExtension(options.readonly)),
    // tabindex: a read-only editor is not contenteditable, and its scrolling text must still be reachable by keyboard.
    EditorView.contentAttributes.of({ 'aria-label': options.label, tabindex: '0' }),
    EditorView.updateListener.of((update) => {
      if (update.docChanged) options.onChange?.(update.state.doc.toString());
    }),
    EditorView.theme({
      '&': { height: options.height, fontSize: '0.86rem', backgroundColor: 'var(--surface)' },
      '.cm-scroller': { overflow: 'auto', fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' },
      '&.cm-focused': { outline: '2px solid var(--focus)', outlineOffset: '-1px' },
      '.cm-gutters': { backgroundColor: 'var(--surface-muted)', color: 'var(--muted)', border: 'none' },
    }),
  ];
  let view: EditorView | undefined = new EditorView({ parent: options.parent, state: EditorState.create({ doc: options.value, extensions }) });
  void languageExtension(options.language).then((extension) => view?.dispatch({ effects: syntax.reconfigure(extension) }));
  return {
    setValue(value) {
      if (view && value !== view.state.doc.toString()) view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: value } });
    },
    setReadonly(readonly) {
      view?.dispatch({ effects: editable.reconfigure(editableExtension(readonly)) });
    },
    destroy() {
      view?.destroy();
      view = undefined;
    },
  };
}
