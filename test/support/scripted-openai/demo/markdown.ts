// Plain-text Markdown edits of the demo model: split off the frontmatter (kept byte for byte), cut a
// body into level-1/2 sections, rewrite a section as a numbered checklist, shorten sections, tidy
// headings. Line based, so everything the demo does not touch stays exactly as written.

const FRONTMATTER = /^\uFEFF?---\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/u;

export function splitFrontmatter(text: string): { frontmatter: string; body: string } {
  const match = FRONTMATTER.exec(text);
  return match ? { frontmatter: match[0], body: text.slice(match[0].length) } : { frontmatter: '', body: text };
}

export interface Section {
  /** The heading line; null for the text before the first heading. */
  heading: string | null;
  title: string;
  level: number;
  lines: string[];
}

const HEADING = /^(#{1,2})[ \t]+(.*?)[ \t#]*$/u;
const FENCE = /^\s*(```|~~~)/u;

/** Sections split at level-1 and level-2 headings outside code fences; deeper headings stay inside. */
export function parseSections(body: string): Section[] {
  const sections: Section[] = [{ heading: null, title: '', level: 0, lines: [] }];
  let fenced = false;
  for (const line of body.split('\n')) {
    if (FENCE.test(line)) fenced = !fenced;
    const match = fenced ? null : HEADING.exec(line);
    if (match) sections.push({ heading: line, title: match[2]!, level: match[1]!.length, lines: [] });
    else sections.at(-1)!.lines.push(line);
  }
  return sections;
}

export function renderSections(sections: readonly Section[]): string {
  return sections.flatMap((s) => (s.heading === null ? s.lines : [s.heading, ...s.lines])).join('\n');
}

/** A heading's title without its parenthesised suffix, ASCII or full-width (`Goal (目标)`, `Goal（目标）`), as the validator reads it. */
export function plainTitle(title: string): string {
  return title.toLowerCase().replace(/\s*[(（][^)）]*[)）]\s*$/u, '');
}

export function findSection(sections: readonly Section[], title: string): Section | undefined {
  const wanted = title.toLowerCase();
  return sections.find((s) => s.level === 2 && plainTitle(s.title) === wanted);
}

// ---- items: list entries and paragraphs -------------------------------------------------------

interface Item {
  kind: 'item' | 'block';
  /** The list marker as written ("1. ", "- ", "- [ ] "); '' for a paragraph. */
  marker: string;
  text: string;
  /** Nested lines (sub-lists, continuation) kept as written, without the item's own indentation. */
  children: string[];
}

const LIST_ITEM = /^(\s*)([-*+]|\d+[.)])[ \t]+(\[[ xX]\][ \t]+)?(.*)$/u;
const SENTENCE_END = /(?<=[.!?])\s+(?=[A-Z"“(`*])|(?<=[。！？；])/u;

function sentences(text: string): string[] {
  return text.split(SENTENCE_END).map((s) => s.trim()).filter((s) => s !== '');
}

/** Section lines as items: top-level list entries, paragraphs, and opaque blocks (tables, fences, quotes, deeper headings). */
function itemsOf(lines: readonly string[]): Item[] {
  const items: Item[] = [];
  let current: Item | null = null;
  let fenced = false;
  let blank = true;
  for (const line of lines) {
    if (fenced || FENCE.test(line)) {
      if (FENCE.test(line)) fenced = !fenced;
      if (current?.kind !== 'block' || blank) items.push((current = { kind: 'block', marker: '', text: line, children: [] }));
      else current.children.push(line);
      blank = false;
      continue;
    }
    if (line.trim() === '') {
      blank = true;
      continue;
    }
    const list = LIST_ITEM.exec(line);
    const indent = /^\s*/u.exec(line)![0].length;
    if (list && indent === 0) {
      items.push((current = { kind: 'item', marker: `${list[2]} ${list[3] ?? ''}`, text: list[4]!, children: [] }));
    } else if (indent > 0 && current?.kind === 'item') {
      current.children.push(line.replace(/^\s{1,4}/u, ''));
    } else if (/^(\||>|#)/u.test(line)) {
      if (current?.kind === 'block' && !blank) current.children.push(line);
      else items.push((current = { kind: 'block', marker: '', text: line, children: [] }));
    } else if (!blank && current !== null && current.kind !== 'block') {
      current.text = `${current.text} ${line.trim()}`;
    } else {
      items.push((current = { kind: 'item', marker: '', text: line.trim(), children: [] }));
    }
    blank = false;
  }
  return items;
}

/** True when the lines already are the demo's checklist (so rewriting again changes nothing). */
export function isChecklist(lines: readonly string[], intro: string): boolean {
  return lines.some((l) => l.trim() === intro);
}

/**
 * The section's content as a numbered checklist: an intro line, then `1. [ ] …` per list entry; a
 * paragraph becomes one entry per sentence; nested lines stay under their entry; blocks stay as is.
 */
export function checklistLines(lines: readonly string[], intro: string): string[] {
  const out: string[] = ['', intro, ''];
  let n = 0;
  for (const item of itemsOf(lines)) {
    if (item.kind === 'block') {
      out.push(item.text, ...item.children);
      continue;
    }
    const entries = item.marker === '' ? sentences(item.text) : [item.text];
    entries.forEach((entry, i) => {
      out.push(`${++n}. [ ] ${entry}`);
      if (i === entries.length - 1) out.push(...item.children.map((c) => `   ${c}`));
    });
  }
  return [...out, ''];
}

/** A shorter version: entries and paragraphs cut to their first sentence, nested lines dropped; at most `maxItems` entries. */
export function shortenLines(lines: readonly string[], maxItems = 5): string[] {
  const out: string[] = [''];
  let n = 0;
  let kept = 0;
  let wasItem = false;
  for (const item of itemsOf(lines)) {
    if (item.kind === 'block') {
      if (wasItem) out.push('');
      out.push(item.text, ...item.children, '');
      wasItem = false;
      continue;
    }
    if (item.marker !== '' && kept >= maxItems) continue;
    const first = sentences(item.text)[0] ?? item.text;
    if (item.marker === '') {
      if (wasItem) out.push('');
      out.push(first, '');
      wasItem = false;
      continue;
    }
    kept++;
    const marker = /^\d/u.test(item.marker) ? item.marker.replace(/^\d+/u, String(++n)) : item.marker;
    out.push(`${marker}${first}`);
    wasItem = true;
  }
  if (wasItem) out.push('');
  return out;
}

/** Every section but the `keep` ones shortened; headings and the preamble's title kept. */
export function shortenBody(body: string, keep: readonly string[] = [], maxItems = 5): string {
  const kept = new Set(keep.map((k) => k.toLowerCase()));
  const sections = parseSections(body).map((s) => {
    if (s.heading === null || kept.has(plainTitle(s.title)) || s.lines.every((l) => l.trim() === '')) return s;
    return { ...s, lines: shortenLines(s.lines, maxItems) };
  });
  return renderSections(sections);
}

/**
 * The text with its body shortened (frontmatter and `keep` sections untouched), allowing fewer and
 * fewer list entries per section until the result is shorter; null when nothing can be cut.
 */
export function shorterMarkdown(text: string, keep: readonly string[] = []): string | null {
  const { frontmatter, body } = splitFrontmatter(text);
  for (const maxItems of [5, 3, 2, 1]) {
    const shorter = `${frontmatter}${shortenBody(body, keep, maxItems)}`;
    if (shorter.length < text.length) return shorter;
  }
  return null;
}

/** Headings with one blank line around them, no trailing spaces, at most one blank line in a row. */
export function tidyMarkdown(body: string): string {
  const out: string[] = [];
  let fenced = false;
  for (const raw of body.split('\n')) {
    const line = fenced ? raw : raw.replace(/[ \t]+$/u, '');
    if (FENCE.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}[ \t]/u.test(line);
    if (heading && out.length > 0 && out.at(-1) !== '') out.push('');
    if (!fenced && line === '' && out.at(-1) === '') continue;
    if (out.at(-1) !== '' && out.length > 0 && /^#{1,6}[ \t]/u.test(out.at(-1)!) && line !== '') out.push('');
    out.push(line);
  }
  while (out.length > 1 && out.at(-1) === '' && out.at(-2) === '') out.pop();
  return out.join('\n');
}

/** `text` with a level-2 section appended (one blank line before it, a newline at the end). */
export function appendSection(text: string, title: string, lines: readonly string[]): string {
  return `${text.replace(/\s*$/u, '')}\n\n## ${title}\n\n${lines.join('\n')}\n`;
}
