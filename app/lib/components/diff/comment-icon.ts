/**
 * The comment affordance of a diff line: a speech bubble (never a bare "+", which reads as an
 * added line). Built as DOM for CodeMirror's gutter; `CommentIcon.svelte` draws the same shape.
 */
export const COMMENT_ICON_PATH = 'M2.5 2h11A1.5 1.5 0 0 1 15 3.5v7a1.5 1.5 0 0 1-1.5 1.5H7l-3.2 2.6A.5.5 0 0 1 3 14.2V12h-.5A1.5 1.5 0 0 1 1 10.5v-7A1.5 1.5 0 0 1 2.5 2Z';

export function commentIcon(): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 16 16');
  svg.setAttribute('width', '14');
  svg.setAttribute('height', '14');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  svg.classList.add('comment-icon');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', COMMENT_ICON_PATH);
  path.setAttribute('fill', 'currentColor');
  svg.append(path);
  return svg;
}
