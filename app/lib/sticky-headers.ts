/**
 * The bars pinned to the top of the window while the page scrolls (the top bar, the workbench's
 * target bar and tabs, a changed file's header) carry `data-sticky-header`. What a script brings
 * into view (the next change, the next file) lands below them, never under them. A changed file's
 * header (`data-sticky-header="file"`) pins below the page's bars: `trackPinnedBars` keeps the
 * height of that stack in a CSS custom property for its `top`.
 */

/** Room left between the lowest pinned bar and what is brought into view. */
const GAP = 8;

/** The page's own pinned bars: every pinned bar but a changed file's header, which pins below them. */
const PAGE_BARS = '[data-sticky-header]:not([data-sticky-header="file"])';

/** The custom property `trackPinnedBars` sets: how far down the page's pinned bars reach, in pixels. */
export const PINNED_BARS = '--pinned-bars';

/** How far down the window the bars matching `selector` reach once pinned, in CSS pixels. */
function pinnedBottom(selector: string): number {
  let bottom = 0;
  for (const bar of document.querySelectorAll<HTMLElement>(selector)) {
    const style = getComputedStyle(bar);
    // Not pinned on this screen (the target bar on a phone), or not shown.
    if (style.position !== 'sticky' && style.position !== 'fixed') continue;
    const { height } = bar.getBoundingClientRect();
    if (height === 0) continue;
    bottom = Math.max(bottom, (parseFloat(style.top) || 0) + height);
  }
  return bottom;
}

/**
 * How far down the window the pinned bars reach once pinned, in CSS pixels, with the gap below
 * them: a changed file's header counts too (pinned below the page's bars, it is the lowest).
 */
export function stickyHeaderBottom(): number {
  return pinnedBottom('[data-sticky-header]') + GAP;
}

/** Scroll an element into view below the pinned bars (as its `scroll-margin-top`, which the browser honours). */
export function revealBelowHeaders(element: HTMLElement, block: ScrollLogicalPosition): void {
  element.style.scrollMarginTop = `${stickyHeaderBottom()}px`;
  element.scrollIntoView({ block });
}

/**
 * Keep `--pinned-bars` on `host` at how far down the page's pinned bars reach (the top bar; the
 * target bar on a wide screen, the tabs on a phone), so a changed file's header inside it pins just
 * below them (`top: var(--pinned-bars)`), not under them. A bar's height changes with the
 * language and the window's width (words wrap), and which bars are pinned with the width. Returns
 * the function that stops it.
 */
export function trackPinnedBars(host: HTMLElement): () => void {
  const update = () => host.style.setProperty(PINNED_BARS, `${pinnedBottom(PAGE_BARS)}px`);
  const observer = new ResizeObserver(update);
  for (const bar of document.querySelectorAll<HTMLElement>(PAGE_BARS)) observer.observe(bar);
  // Crossing a breakpoint pins or unpins a bar without always changing its size.
  window.addEventListener('resize', update);
  update();
  return () => {
    observer.disconnect();
    window.removeEventListener('resize', update);
  };
}
