/**
 * The interface language: which one is in use, the `t()` every component reads its words through,
 * and the switch. Words come from i18next with the two catalogues bundled (no loading step), all
 * but the Workbench's area, which `workbench-words.ts` adds (`addWords`) where it is shown;
 * `t()` reads the current language, so every text a component shows follows a switch at once.
 */
import i18next from 'i18next';
import { DEFAULT_LOCALE, isLocale, LOCALE_COOKIE, LOCALE_TAGS, localeOfTag, type Locale } from '../../../shared/i18n/locales.ts';
import { en } from './en.ts';
import { zh } from './zh.ts';
import type { MessageKey, MessageValues, Messages } from './catalogue.ts';

const translator = i18next.createInstance();
void translator.init({
  resources: { en: { translation: en }, zh: { translation: zh } },
  lng: DEFAULT_LOCALE,
  fallbackLng: DEFAULT_LOCALE,
  initAsync: false,
  // Svelte escapes what it renders; escaping here as well would show `&lt;` to the reader.
  interpolation: { escapeValue: false },
  returnNull: false,
});

let current = $state<Locale>(DEFAULT_LOCALE);
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

/**
 * Use `next` everywhere: the words, `<html lang>`, this device's memory and the cookie the Worker
 * reads to answer errors in the same language. Saving the choice on the account is the caller's.
 */
export function useLocale(next: Locale): void {
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
