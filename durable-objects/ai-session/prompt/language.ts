/**
 * The language part of the guardrail layer (layer 1): which language the model writes staged
 * content in (the project's content language) and which it answers in (the sender's account
 * language, else the script of their message). Validation hints the tools return stay English:
 * models follow English rule text best, so the model reads them in English and explains them in
 * the person's language.
 */
import type { ContentLanguage } from '../../../shared/i18n/content-language.ts';
import { mostlyHan } from '../../../shared/i18n/content-language.ts';
import { LOCALE_NAMES, type Locale } from '../../../shared/i18n/locales.ts';

export interface TurnLanguages {
  /** The project's content language: staged text is written in it. */
  content: ContentLanguage;
  /** The language the answer is written in. */
  reply: Locale;
  /** Where `reply` came from: the sender's account setting, or the script of their message. */
  replySource: 'account' | 'message';
}

/** The language a message is written in, by its script: Chinese when Han characters are half its words. */
export function scriptLanguage(message: string): Locale {
  return mostlyHan([message]) ? 'zh' : 'en';
}

/** The languages of a turn: the sender's account locale wins; without one, their message's script decides. */
export function turnLanguages(content: ContentLanguage, senderLocale: Locale | null, message: string): TurnLanguages {
  return senderLocale ? { content, reply: senderLocale, replySource: 'account' } : { content, reply: scriptLanguage(message), replySource: 'message' };
}

const named = (locale: Locale) => `${LOCALE_NAMES[locale]} (${locale})`;

/** The first line says the content language in a fixed form the scripted demo model reads too. */
export function languageRules({ content, reply, replySource }: TurnLanguages): string[] {
  const why = replySource === 'account' ? 'the language of their account' : 'the language their message is written in';
  return [
    'Language:',
    `- Content language of this project: ${content}. Write every text you stage in ${named(content)}: step titles and bodies, workflow.md prose, agent names and personas, graph node titles and edge labels, asset text. Keep ids, file paths, frontmatter keys, the required section headings (## Goal, ## Instructions, ## Completion) and code exactly as the format needs them; keep text you were not asked to change in the language it is in.`,
    `- Answer the person who sent this message (assistantSummary and chat) in ${named(reply)}: ${why}.`,
    '- Validation errors, warnings and hints from the tools are in English: read them as they are, and explain them to the person in their language.',
  ];
}
