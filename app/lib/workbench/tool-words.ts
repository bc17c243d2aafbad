/**
 * A tool line's words in the reader's language, from the key and parameters its event carries
 * (shared/ai/tool-words.ts); an event from before there were words keeps its English summary.
 */
import type { ToolWords } from '../../../shared/ai/tool-words.ts';
import { formatNumber } from '../format.ts';
import { t } from '../i18n/i18n.svelte.ts';
import { eventErrorText } from './event-error.ts';

export function toolWordsText(words: ToolWords | null | undefined, fallback: string): string {
  if (!words) return fallback;
  const values = words.values;
  if (words.key === 'failed') {
    const code = String(values['code'] ?? '');
    // The error's own words in English; in another language the code's words from the shared table.
    return t('toolWords.failed', { code, message: eventErrorText(code, String(values['message'] ?? '')).message });
  }
  const shown: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(values)) shown[name] = typeof value === 'number' ? formatNumber(value) : value;
  // `count` stays a number so it picks the plural form; `countText` is how it reads.
  if (typeof values['count'] === 'number') Object.assign(shown, { count: values['count'], countText: formatNumber(values['count']) });
  return t(`toolWords.${words.key}`, shown);
}
