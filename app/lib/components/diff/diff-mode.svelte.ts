/**
 * How the changes pane shows a file's diff — side by side, inline, or as unified text — remembered
 * in localStorage for the next visit. One value for the whole page, so the toggle on any file
 * switches them all.
 */
export type DiffMode = 'split' | 'inline' | 'text';

const KEY = 'workbench.diff-mode';
const MODES: readonly DiffMode[] = ['split', 'inline', 'text'];
/**
 * The unified text stays the first view until the browser tests that read its lines
 * (review, workbench, lifecycle, demo-model) choose it explicitly; then this becomes 'split'.
 */
export const DEFAULT_MODE: DiffMode = 'text';

function stored(): DiffMode {
  try {
    const value = globalThis.localStorage?.getItem(KEY);
    return MODES.includes(value as DiffMode) ? (value as DiffMode) : DEFAULT_MODE;
  } catch {
    // Storage can be disabled (private windows, policies): the default then.
    return DEFAULT_MODE;
  }
}

class DiffModePreference {
  #mode = $state<DiffMode>(stored());

  get mode(): DiffMode {
    return this.#mode;
  }

  set mode(mode: DiffMode) {
    this.#mode = mode;
    try {
      globalThis.localStorage?.setItem(KEY, mode);
    } catch {
      // Not remembered; the choice still holds for this page.
    }
  }
}

/** The page-wide preference (a UI setting, not session state). */
export const diffMode = new DiffModePreference();
