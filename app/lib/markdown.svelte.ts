/**
 * Markdown for display (the assets panel's preview, review comments): `marked` turns it into HTML
 * and DOMPurify keeps only what text needs (markdown-policy.ts: no script, no forms, no styles), so
 * the result is safe for `{@html}`.
 * Nothing else in the app renders HTML from package content. Both load on first use, so no page's
 * first load carries them: until they arrive the text shows escaped, and every `{@html}` that
 * called renderMarkdown renders again when they do (it read `renderer`, a state).
 */

import { markdownSanitizer } from './markdown-policy.ts';

type Render = (text: string) => string;

let renderer = $state.raw<Render | null>(null);
let loading: Promise<void> | null = null;

function load(): Promise<void> {
  loading ??= Promise.all([import('dompurify'), import('marked')]).then(([{ default: DOMPurify }, { Marked }]) => {
    // Private instances: no global `marked.use()` or DOMPurify hook elsewhere can change what this renders.
    const marked = new Marked({ gfm: true });
    const sanitize = markdownSanitizer(DOMPurify, window);
    renderer = (text) => sanitize(marked.parse(text, { async: false }));
  });
  return loading;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Sanitised HTML of a Markdown text (a step, an asset, a comment); escaped plain text while the renderer loads. */
export function renderMarkdown(text: string): string {
  if (renderer) return renderer(text);
  void load();
  return `<p>${text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c)}</p>`;
}
