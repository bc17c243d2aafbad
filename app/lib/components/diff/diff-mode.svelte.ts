/**
 * How the changes pane shows a file's diff — side by side, inline, or as unified text — remembered
 * in localStorage for the next visit. One value for the whole page, so the toggle on any file
 * switches them all.
 */
export type DiffMode = 'split' | 'inline' | 'text';

const KEY = 'workbench.diff-mode';
const MODES: readonly DiffMode[] = ['split', 'inline', 'text'];
/** Side by side, unless the window is too narrow for two columns of text (see `defaultMode`). */
export const DEFAULT_MODE: DiffMode = 'split';
/** Below this width two columns wrap every line; inline reads better. */
export const NARROW_QUERY = '(max-width: 700px)';

/** The first view for a reader who never chose one: inline on a narrow window, else side by side. */
export function defaultMode(narrow: boolean): DiffMode {
  return narrow ? 'inline' : DEFAULT_MODE;
}

function stored(): DiffMode {
  let narrow = false;
  try {
    narrow = globalThis.matchMedia?.(NARROW_QUERY).matches ?? false;
    const value = globalThis.localStorage?.getItem(KEY);
    return MODES.includes(value as DiffMode) ? (value as DiffMode) : defaultMode(narrow);
  } catch {
    // Storage can be disabled (private windows, policies): the default then.
    return defaultMode(narrow);
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
