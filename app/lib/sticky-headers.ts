/**
 * The bars pinned to the top of the window while the page scrolls (the top bar, the workbench's
 * target bar and tabs, a changed file's header) carry `data-sticky-header`. What a script brings
 * into view (the next change, the next file) lands below them, never under them. A changed file's
 * header (`data-sticky-header="file"`) pins below the page's bars: `trackPinnedBars` keeps the
 * height of that stack in a CSS custom property for its `top`; the page's bars below the top bar
 * pin at its measured height (`trackTopBar`).
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
 * How far down the window the pinned bars reach once `target` is scrolled into view, in CSS
 * pixels, with the gap below them: the page's bars, and a changed file's header only when `target`
 * is in that file's body (the one header pinned over it then). A file's header pins only while its
 * own file passes under it, so the headers of other files, and of the file when `target` is the
 * file itself, leave no room.
 */
export function stickyHeaderBottom(target: Element): number {
  let bottom = pinnedBottom(PAGE_BARS);
  for (const header of document.querySelectorAll<HTMLElement>('[data-sticky-header="file"]')) {
    const file = header.parentElement;
    if (!file || file === target || !file.contains(target) || header.contains(target)) continue;
    const style = getComputedStyle(header);
    if (style.position !== 'sticky' && style.position !== 'fixed') continue;
    const { height } = header.getBoundingClientRect();
    if (height > 0) bottom = Math.max(bottom, (parseFloat(style.top) || 0) + height);
  }
  return bottom + GAP;
}

/** Scroll an element into view below the pinned bars (as its `scroll-margin-top`, which the browser honours). */
export function revealBelowHeaders(element: HTMLElement, block: ScrollLogicalPosition): void {
  element.style.scrollMarginTop = `${stickyHeaderBottom(element)}px`;
  element.scrollIntoView({ block });
}

/** The custom property `trackTopBar` sets: the top bar's height, in pixels (the `top` of the bars pinned below it). */
export const TOP_BAR_HEIGHT = '--top-bar-height';

/**
 * Keep `--top-bar-height` on the document at the top bar's height, so the bars pinned below it
 * (`top: var(--top-bar-height)`: the workbench's target bar, its tabs on a phone) sit right under
 * it: its height changes with the window's width (its items wrap), the language and the zoom. An
 * attachment for the top bar; returns the function that stops it.
 */
export function trackTopBar(bar: HTMLElement): () => void {
  const root = document.documentElement;
  // Whole pixels, rounded up, so a bar pinned there never overlaps the top bar by a fraction of one.
  const update = () => root.style.setProperty(TOP_BAR_HEIGHT, `${Math.ceil(bar.getBoundingClientRect().height)}px`);
  const observer = new ResizeObserver(update);
  observer.observe(bar);
  update();
  return () => {
    observer.disconnect();
    root.style.removeProperty(TOP_BAR_HEIGHT);
  };
}

/**
 * Keep `--pinned-bars` on `host` at how far down the page's pinned bars reach (the top bar; the
 * target bar on a wide screen, the tabs on a phone), so a changed file's header inside it pins just
 * below them (`top: var(--pinned-bars)`), not under them. A bar's height changes with the
 * language and the window's width (words wrap), and which bars are pinned with the width. Returns
 * the function that stops it.
 */
export function trackPinnedBars(host: HTMLElement): () => void {
  // Whole pixels, rounded up: a fractional offset may be laid out a fraction above the bars' bottom.
  const update = () => host.style.setProperty(PINNED_BARS, `${Math.ceil(pinnedBottom(PAGE_BARS))}px`);
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
