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

/** Whether a line can open or close a fence or be a heading: up to 3 spaces, then `#`, a backtick or `~`. */
function mayBeMarkup(line: string): boolean {
  let i = 0;
  while (i < 3 && line.charCodeAt(i) === 0x20) i++;
  const c = line.charCodeAt(i);
  return c === 0x23 || c === 0x60 || c === 0x7e;
}

export function markdownSections(text: string): MarkdownSection[] {
  const split = text.split('\n');
  const lines = text.includes('\r') ? split.map((l) => l.replace(/\r$/u, '')) : split;
  const headings: Array<{ level: number; title: string; index: number }> = [];
  let fence: string | null = null;
  lines.forEach((line, index) => {
    // Every pattern below starts with what mayBeMarkup looks for; prose lines skip the regexes.
    if (!mayBeMarkup(line)) return;
    if (fence !== null) {
      const close = FENCE_CLOSE.exec(line)?.[1];
      if (close && close[0] === fence[0] && close.length >= fence.length) fence = null;
      return;
    }
    const fenceMatch = FENCE_OPEN.exec(line);
    if (fenceMatch?.[1]) {
      fence = fenceMatch[1];
      return;
    }
    const heading = HEADING.exec(line);
    if (heading?.[1]) headings.push({ level: heading[1].length, title: (heading[2] ?? '').trim(), index });
  });
  return headings.map((h, i) => {
    let end = lines.length;
    for (const next of headings.slice(i + 1)) {
      if (next.level <= h.level) {
        end = next.index;
        break;
      }
    }
    return { level: h.level, title: h.title, line: h.index + 1, content: lines.slice(h.index + 1, end).join('\n') };
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
