/**
 * Windowed reads of long texts for the read tools: a large file comes back as a window plus the
 * metadata to read on, so one tool result never floods the
 * model's context.
 */

/** Texts up to this many characters come back whole when no offset/limit is asked for. */
export const DEFAULT_WINDOW_CHARS = 12_000;
/** The most characters one read returns, whatever limit is asked for. */
export const MAX_WINDOW_CHARS = 32_000;

export interface TextWindow {
  content: string;
  /** Length of the whole text, in UTF-16 code units (what offsets count). */
  totalChars: number;
  offset: number;
  /** True when `content` is not the whole text. */
  truncated: boolean;
  /** Where the next window starts, when text remains after this one. */
  nextOffset?: number;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** The window [offset, offset + limit) of `text`; never ends between the two halves of a surrogate pair. */
export function windowText(text: string, offset = 0, limit = DEFAULT_WINDOW_CHARS): TextWindow {
  const totalChars = text.length;
  const start = Math.min(Math.max(0, Math.trunc(offset)), totalChars);
  const size = Math.min(Math.max(1, Math.trunc(limit)), MAX_WINDOW_CHARS);
  let end = Math.min(start + size, totalChars);
  if (end < totalChars && end - start > 1 && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
  const content = text.slice(start, end);
  return {
    content,
    totalChars,
    offset: start,
    truncated: content.length < totalChars,
    ...(end < totalChars ? { nextOffset: end } : {}),
  };
}

/** The hint a tool result carries when more text remains. */
export function readMoreHint(toolName: string, window: TextWindow): string | undefined {
  return window.nextOffset === undefined ? undefined : `Call ${toolName} with offset=${window.nextOffset} to read more.`;
}
