// A single-page app: the Worker serves build/index.html for every page path and the client
// renders it (wrangler.toml: not_found_handling = "single-page-application").
import { initialLocale } from '../lib/i18n/i18n.svelte.ts';
import { useReaderLocale } from '../lib/i18n/reader-locale.ts';

export const ssr = false;
export const prerender = false;

// Before the first render, so no page flashes in the wrong language: a language other than
// English loads its words here, once (the root layout's load runs again only when reloaded), and
// the validation issues' words with them (until those are in, an issue shows the validator's English).
export async function load(): Promise<Record<string, never>> {
  await useReaderLocale(initialLocale());
  return {};
}
