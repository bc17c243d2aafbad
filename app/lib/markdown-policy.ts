/**
 * What rendered Markdown may hold: an allow-list of the elements Markdown itself makes (GFM
 * tables and task lists included) and a few plain text tags people write by hand. Anyone who can
 * comment (a viewer) writes this text and everyone on the project reads it, so it must not be able
 * to do more than text can: no `<style>` (a rule could cover the page with an invisible button),
 * no `<form>`, `<button>` or `<select>` (a click on it would send a request with the reader's
 * cookie), no `style` or `id` attributes, and `class` only as Markdown's code-language marker, so
 * the app's own classes cannot be borrowed to lay anything over the page. A task-list checkbox is
 * kept, disabled. Links and images keep DOMPurify's safe-URL rule; images load only from the app
 * itself (the page's `img-src`).
 */
import type { Config, DOMPurify, WindowLike } from 'dompurify';

const TAGS = [
  'a', 'abbr', 'b', 'blockquote', 'br', 'code', 'dd', 'del', 'details', 'div', 'dl', 'dt', 'em', 'h1', 'h2', 'h3',
  'h4', 'h5', 'h6', 'hr', 'i', 'img', 'input', 'ins', 'kbd', 'li', 'mark', 'ol', 'p', 'pre', 's', 'small', 'span',
  'strong', 'sub', 'summary', 'sup', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'u', 'ul',
];
const ATTRIBUTES = ['align', 'alt', 'checked', 'class', 'colspan', 'disabled', 'href', 'open', 'rowspan', 'src', 'start', 'title', 'type'];

const MARKDOWN_SANITIZE: Config = {
  ALLOWED_TAGS: TAGS,
  ALLOWED_ATTR: ATTRIBUTES,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
};

/** Markdown's fenced-code marker (`language-ts`), the one class rendered text may carry. */
const CODE_LANGUAGE = /^language-[\w+#.-]{1,40}$/;

/** A sanitiser for rendered Markdown: its own DOMPurify instance, so these hooks touch nothing else. */
export function markdownSanitizer(createPurify: (root: WindowLike) => DOMPurify, root: WindowLike): (html: string) => string {
  const purify = createPurify(root);
  purify.addHook('uponSanitizeAttribute', (node, data) => {
    if (data.attrName === 'class' && !(node.nodeName === 'CODE' && CODE_LANGUAGE.test(data.attrValue))) data.keepAttr = false;
    if (data.attrName === 'type' && !(node.nodeName === 'INPUT' && data.attrValue === 'checkbox')) data.keepAttr = false;
  });
  purify.addHook('afterSanitizeAttributes', (node) => {
    // Only a task list's checkbox: shown, never changed (a bare `<input>` becomes a disabled text box).
    if (node.nodeName === 'INPUT') node.setAttribute('disabled', '');
  });
  return (html) => purify.sanitize(html, MARKDOWN_SANITIZE) as string;
}
