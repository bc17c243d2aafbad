/**
 * Markdown for display (the assets panel's preview): `marked` turns it into HTML and DOMPurify
 * removes anything that could run script, so the result is safe for `{@html}`. Nothing else in
 * the app renders HTML from package content.
 */
import DOMPurify from 'dompurify';
import { Marked } from 'marked';

// A private instance: no global `marked.use()` elsewhere can change what this renders.
const marked = new Marked({ gfm: true });

/** Sanitised HTML of a Markdown text (a step, an asset). */
export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false });
  return DOMPurify.sanitize(html, { USE_PROFILES: { html: true } });
}
