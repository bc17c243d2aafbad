/**
 * The bars pinned to the top of the window while the page scrolls (the top bar, the workbench's
 * target bar and tabs, a changed file's header) carry `data-sticky-header`. What a script brings
 * into view (the next change, the next file) lands below them, never under them.
 */

/** Room left between the lowest pinned bar and what is brought into view. */
const GAP = 8;

/** How far down the window the pinned bars reach once pinned, in CSS pixels, with the gap below them. */
export function stickyHeaderBottom(): number {
  let bottom = 0;
  for (const bar of document.querySelectorAll<HTMLElement>('[data-sticky-header]')) {
    const style = getComputedStyle(bar);
    // Not pinned on this screen (the target bar on a phone), or not shown.
    if (style.position !== 'sticky' && style.position !== 'fixed') continue;
    const { height } = bar.getBoundingClientRect();
    if (height === 0) continue;
    bottom = Math.max(bottom, (parseFloat(style.top) || 0) + height);
  }
  return bottom + GAP;
}

/** Scroll an element into view below the pinned bars (as its `scroll-margin-top`, which the browser honours). */
export function revealBelowHeaders(element: HTMLElement, block: ScrollLogicalPosition): void {
  element.style.scrollMarginTop = `${stickyHeaderBottom()}px`;
  element.scrollIntoView({ block });
}
