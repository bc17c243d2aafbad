/**
 * The interface language: which one is in use, the `t()` every component reads its words through,
 * and the switch. Words come from i18next. English is bundled; another language's catalogue is its
 * own chunk, loaded the first time that language is used (a page in English never downloads the
 * Chinese words), and the switch happens once it is in, so no page shows two languages at once.
 * The areas only some pages show are added by `addWords` where they are shown; `t()` reads the
 * current language, so every text a component shows follows a switch.
 */
import i18next from 'i18next';
import { DEFAULT_LOCALE, isLocale, LOCALE_COOKIE, LOCALE_TAGS, localeOfTag, type Locale } from '../../../shared/i18n/locales.ts';
import { en } from './en.ts';
import type { LazyArea, MessageKey, MessageValues, Messages } from './catalogue.ts';

type Catalogue = Omit<Messages, LazyArea>;

/** The catalogues not bundled, each loaded on first use (`import()`: a chunk of its own). */
const LOADERS: Record<Exclude<Locale, 'en'>, () => Promise<Catalogue>> = {
  zh: () => import('./zh.ts').then((module) => module.zh),
};

const translator = i18next.createInstance();
void translator.init({
  resources: { en: { translation: en } },
  lng: DEFAULT_LOCALE,
  fallbackLng: DEFAULT_LOCALE,
  initAsync: false,
  // Svelte escapes what it renders; escaping here as well would show `&lt;` to the reader.
  interpolation: { escapeValue: false },
  returnNull: false,
});

let current = $state<Locale>(DEFAULT_LOCALE);
/** The language asked for last: a slower load of an earlier choice does not win over it. */
let wanted: Locale = DEFAULT_LOCALE;
/** Each catalogue's load, once per language; a failed load is forgotten so a later switch tries again. */
const loads = new Map<Locale, Promise<void>>([[DEFAULT_LOCALE, Promise.resolve()]]);
const loaded = new Set<Locale>([DEFAULT_LOCALE]);
/** Bumped when an area's words are added, so text rendered before then is rendered again. */
let added = $state(0);

/**
 * Adds one area of the catalogue in every language, for the pages that show it. A module imports
 * it for its side effect before its components render (see `workbench-words.ts`).
 */
export function addWords<A extends keyof Messages>(area: A, words: Record<Locale, Messages[A]>): void {
  for (const [lng, resources] of Object.entries(words)) translator.addResourceBundle(lng, 'translation', { [area]: resources }, true, true);
  added += 1;
}

/** How many areas were added so far; reading it makes a caller render again when one arrives. */
export function wordsAdded(): number {
  return added;
}

/** The words for `key` in the current language, with `{{placeholders}}` filled. */
export function t(key: MessageKey, values?: MessageValues): string {
  // Reading `current` (and `added`) makes every caller depend on the language and the words
  // loaded, so a switch or an added area re-renders it.
  void added;
  return translator.t(key, { ...values, lng: current });
}

export function locale(): Locale {
  return current;
}

/** The BCP 47 tag of the current language, for `Intl` formatters and `<html lang>`. */
export function localeTag(): string {
  return LOCALE_TAGS[current];
}

/** The language to start in: the one chosen before on this device, else the browser's. */
export function initialLocale(): Locale {
  const stored = readStored();
  if (stored) return stored;
  for (const tag of globalThis.navigator?.languages ?? []) {
    const match = localeOfTag(tag);
    if (match) return match;
  }
  return DEFAULT_LOCALE;
}

/** `next`'s catalogue, loaded once (the first switch to it pays one chunk). */
function loadCatalogue(next: Locale): Promise<void> {
  let load = loads.get(next);
  if (!load) {
    load = LOADERS[next as Exclude<Locale, 'en'>]().then(
      (catalogue) => {
        // Merged under what `addWords` may have added for this language already.
        translator.addResourceBundle(next, 'translation', catalogue, true, false);
        loaded.add(next);
      },
      (error: unknown) => {
        loads.delete(next);
        throw error;
      },
    );
    loads.set(next, load);
  }
  return load;
}

/**
 * Use `next` everywhere: the words, `<html lang>`, this device's memory and the cookie the Worker
 * reads to answer errors in the same language. A language already loaded switches at once; another
 * switches when its catalogue has arrived. Resolves true once `next` is in use; false when a later
 * choice came first or its catalogue could not be loaded (offline): the page stays as it was.
 * Saving the choice on the account is the caller's.
 */
export async function useLocale(next: Locale): Promise<boolean> {
  wanted = next;
  if (!loaded.has(next)) {
    try {
      await loadCatalogue(next);
    } catch {
      return false;
    }
    if (wanted !== next) return false;
  }
  apply(next);
  return true;
}

function apply(next: Locale): void {
  current = next;
  if (typeof document !== 'undefined') {
    document.documentElement.lang = LOCALE_TAGS[next];
    document.cookie = `${LOCALE_COOKIE}=${next}; Path=/; Max-Age=31536000; SameSite=Lax`;
  }
  try {
    globalThis.localStorage?.setItem(LOCALE_COOKIE, next);
  } catch {
    // Storage refused (private mode, quota): the choice lasts for this page and the account keeps it.
  }
}

function readStored(): Locale | undefined {
  try {
    const value = globalThis.localStorage?.getItem(LOCALE_COOKIE);
    return isLocale(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
