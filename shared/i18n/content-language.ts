/**
 * A project's content language: the language its package text is written in, which the AI writes
 * staged content in (durable-objects/ai-session/prompt/layers.ts). It is one of the product's own
 * locales ('en' | 'zh'), not a free BCP 47 tag: those are the two languages the prompt, the demo
 * model and the review screens know how to speak; any other language reads as 'en'.
 *
 * Detected on import from the package: a BMAD `document_output_language` (what documents are
 * written in) wins, then `communication_language`, then the share of Han characters in the prose of
 * workflow.md, the steps, agents.json and the graph labels.
 */
import type { BmadPackage } from '../bmad/package.ts';
import { isLocale, localeOfTag, type Locale } from './locales.ts';
import { isAscii } from '../text/ascii.ts';

export const CONTENT_LANGUAGES = ['en', 'zh'] as const satisfies readonly Locale[];
export type ContentLanguage = Locale;

export function isContentLanguage(value: unknown): value is ContentLanguage {
  return isLocale(value);
}

/** A stored value → a content language; anything unknown reads as English. */
export function parseContentLanguage(value: unknown): ContentLanguage {
  return isContentLanguage(value) ? value : 'en';
}

/**
 * A BMAD language setting's value (`Chinese`, `简体中文`, `zh-CN`, `English`) → its locale, or
 * undefined for a placeholder (`{communication_language}`) or a language the product does not speak.
 */
export function localeOfLanguageName(value: string): Locale | undefined {
  const name = value.trim().replace(/^["']|["']$/gu, '').trim();
  if (name === '' || name.includes('{')) return undefined;
  if (/chinese|mandarin|中文|汉语|漢語|简体|繁體|普通话/iu.test(name)) return 'zh';
  if (/^english$|英文|英语/iu.test(name)) return 'en';
  return localeOfTag(name);
}

const SETTING = /^[ \t]*(document_output_language|communication_language)[ \t]*:[ \t]*(.+?)[ \t]*$/gmu;

/** The BMAD language settings written anywhere in the package's text files (YAML or frontmatter lines). */
export function languageSettings(texts: readonly string[]): { document?: Locale; communication?: Locale } {
  const found: { document?: Locale; communication?: Locale } = {};
  for (const text of texts) {
    // Both setting names contain it: a package's 10 MB of prose is not run through the line regex.
    if (!text.includes('_language')) continue;
    for (const match of text.matchAll(SETTING)) {
      const locale = localeOfLanguageName(match[2]!);
      if (!locale) continue;
      if (match[1] === 'document_output_language') found.document ??= locale;
      else found.communication ??= locale;
    }
  }
  return found;
}

const HAN = /\p{Script=Han}/gu;
const ANY_HAN = /\p{Script=Han}/u;

/** How many runs of two or more ASCII letters `text` holds (what /[A-Za-z]{2,}/g matches), counted without building the matches. */
function latinWords(text: string): number {
  let words = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i) | 0x20;
    if (c >= 0x61 && c <= 0x7a) run++;
    else {
      if (run >= 2) words++;
      run = 0;
    }
  }
  return run >= 2 ? words + 1 : words;
}

/** Markdown files are prose; JSON files (agents.json, graphs) give their string values. */
function jsonStrings(text: string): string[] {
  try {
    const strings: string[] = [];
    const walk = (value: unknown, depth: number): void => {
      if (typeof value === 'string') strings.push(value);
      else if (depth < 10 && typeof value === 'object' && value !== null) for (const child of Object.values(value)) walk(child, depth + 1);
    };
    walk(JSON.parse(text), 0);
    return strings;
  } catch {
    return [text];
  }
}

/**
 * Whether Han characters are at least half the words of `texts`, counting a Han character as a word
 * (it carries about one): false for English prose, true for Chinese. Ids, keys and paths (ASCII
 * strings without a space) are left out: every package has them in English. Text by text, never
 * joined, and without counting every Latin word: Han characters first (only texts with a character
 * outside ASCII can hold one), then words until they outnumber them, so a 10 MB English package is
 * settled by one native ASCII check per text.
 */
export function mostlyHan(texts: readonly string[]): boolean {
  let han = 0;
  for (const text of texts) if (!isAscii(text)) han += text.match(HAN)?.length ?? 0;
  if (han === 0) return false;
  let words = 0;
  for (const text of texts) {
    if (isAscii(text) && !/\s/u.test(text.trim())) continue;
    words += latinWords(text);
    if (words > han) return false;
  }
  return true;
}

/** The content language of a package (see the module comment for the order of evidence). */
export function detectContentLanguage(pkg: BmadPackage): ContentLanguage {
  const markdown = pkg.workflows.flatMap((w) => [w.workflowMd ?? '', ...w.steps.map((s) => s.markdown)]);
  const settings = languageSettings([...markdown, ...pkg.assets.map((a) => a.content)]);
  if (settings.document) return settings.document;
  if (settings.communication) return settings.communication;
  // Words only count against Han characters: with none in the prose, the package is English, settled
  // without counting a word. Only texts with a character outside ASCII can hold one (and JSON with a
  // \u escape), so an English package's graphs are not even parsed for their strings.
  const json = [pkg.agentsJson, ...pkg.workflows.map((w) => w.graphJson)].filter((text) => text !== null);
  const mayHoldHan = [...markdown.filter((text) => !isAscii(text)), ...json.filter((text) => text.includes('\\u') || !isAscii(text)).flatMap(jsonStrings)];
  if (!mayHoldHan.some((text) => ANY_HAN.test(text))) return 'en';
  const prose = [...markdown, ...json.flatMap(jsonStrings)];
  // Half the words: a Chinese package keeps English ids, headings and keys, and still reads as Chinese.
  return mostlyHan(prose) ? 'zh' : 'en';
}
