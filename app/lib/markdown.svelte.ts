/**
 * Markdown for display (the assets panel's preview, review comments): `marked` turns it into HTML
 * and DOMPurify removes anything that could run script, so the result is safe for `{@html}`.
 * Nothing else in the app renders HTML from package content. Both load on first use, so no page's
 * first load carries them: until they arrive the text shows escaped, and every `{@html}` that
 * called renderMarkdown renders again when they do (it read `renderer`, a state).
 */

type Render = (text: string) => string;

let renderer = $state.raw<Render | null>(null);
let loading: Promise<void> | null = null;

function load(): Promise<void> {
  loading ??= Promise.all([import('dompurify'), import('marked')]).then(([{ default: DOMPurify }, { Marked }]) => {
    // A private instance: no global `marked.use()` elsewhere can change what this renders.
    const marked = new Marked({ gfm: true });
    renderer = (text) => DOMPurify.sanitize(marked.parse(text, { async: false }), { USE_PROFILES: { html: true } });
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
