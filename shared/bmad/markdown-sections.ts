/**
 * A minimal Markdown heading scanner: ATX headings (`## Title`) outside fenced code blocks, and the
 * section each one opens. Enough for the step-body rules and the workflow.md Steps Index; not a
 * Markdown parser.
 */

export interface MarkdownSection {
  level: number;
  /** Heading text without the #s and trailing closing sequence. */
  title: string;
  /** 1-based line of the heading within the scanned text. */
  line: number;
  /** Text from the line after the heading to the next heading of the same or a higher level. */
  content: string;
}

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/u;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/u;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/u;

/** Whether the line at `start` can open or close a fence or be a heading: up to 3 spaces, then `#`, a backtick or `~`. */
function mayBeMarkup(text: string, start: number): boolean {
  let i = start;
  while (i < start + 3 && text.charCodeAt(i) === 0x20) i++;
  const c = text.charCodeAt(i);
  return c === 0x23 || c === 0x60 || c === 0x7e;
}

/**
 * One pass over the text by offsets: only lines that may be markup are copied out to test, and a
 * section's content is one slice of the text (a 10 MB import's step bodies were split into a million
 * line strings and joined again). CR before a line end is dropped, as a line-by-line reading does.
 */
export function markdownSections(text: string): MarkdownSection[] {
  const headings: Array<{ level: number; title: string; index: number; start: number; contentStart: number }> = [];
  let fence: string | null = null;
  let index = 0;
  for (let start = 0; start <= text.length; index++) {
    const newline = text.indexOf('\n', start);
    const next = newline === -1 ? text.length + 1 : newline + 1;
    // Every pattern below starts with what mayBeMarkup looks for; prose lines skip the regexes.
    if (mayBeMarkup(text, start)) {
      const end = newline === -1 ? text.length : newline;
      const line = text.charCodeAt(end - 1) === 0x0d ? text.slice(start, end - 1) : text.slice(start, end);
      if (fence !== null) {
        const close = FENCE_CLOSE.exec(line)?.[1];
        if (close && close[0] === fence[0] && close.length >= fence.length) fence = null;
      } else {
        const fenceMatch = FENCE_OPEN.exec(line);
        const heading = fenceMatch?.[1] ? null : HEADING.exec(line);
        if (fenceMatch?.[1]) fence = fenceMatch[1];
        else if (heading?.[1]) headings.push({ level: heading[1].length, title: (heading[2] ?? '').trim(), index, start, contentStart: next });
      }
    }
    start = next;
  }
  const crlf = text.includes('\r');
  return headings.map((h, i) => {
    let end = text.length + 1;
    for (let j = i + 1; j < headings.length; j++) {
      if (headings[j]!.level <= h.level) {
        end = headings[j]!.start;
        break;
      }
    }
    // Up to the newline before the next heading (or the end): the lines between, joined by \n.
    const content = h.contentStart >= end ? '' : text.slice(h.contentStart, end - 1);
    return { level: h.level, title: h.title, line: h.index + 1, content: crlf ? content.replace(/\r(?=\n|$)/gu, '') : content };
  });
}

/** Whether a heading title names `name`, case-insensitively, optionally with a (parenthesised) suffix. */
export function titleMatches(title: string, name: string): boolean {
  const match = /^(.*?)\s*(?:[(（][^)）]*[)）])?$/u.exec(title.trim());
  return (match?.[1] ?? '').toLowerCase() === name.toLowerCase();
}

/** Empty means nothing but whitespace and HTML comments. */
export function isBlankContent(content: string): boolean {
  return content.replace(/<!--[\s\S]*?-->/gu, '').trim() === '';
}
