/**
 * The semantic diff of a Markdown file with YAML frontmatter (step files, workflow.md): the
 * frontmatter as a field table (via `yaml`, through shared/bmad/frontmatter.ts) and the body by
 * section (ATX headings, by the rules of shared/bmad/markdown-sections.ts). A section is keyed by its heading
 * path and holds only its own text (up to the next heading of any level), so an edit inside a
 * subsection marks that subsection, not every heading above it.
 */
import { splitFrontmatter } from '../../bmad/frontmatter.ts';
import { MAX_FRONTMATTER_BYTES, exceedsUtf8Bytes } from '../../bmad/limits.ts';
import { diffFrontmatterBlocks } from './frontmatter-blocks.ts';
import { parseFrontmatterSide } from './parse.ts';
import type { FieldChange, MarkdownDiffResult, SectionDiff, Unparsable } from './types.ts';
import { diffValues } from './values.ts';

interface OwnSection {
  title: string;
  level: number;
  text: string;
}

export const TOP_SECTION = '(top)';

// The heading and fence rules of shared/bmad/markdown-sections.ts, scanned once here: that module
// also builds each heading's whole content (subsections included), which this diff does not need.
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/u;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/u;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/u;

const NOT_MARKUP = 0;
const HEADING_MARK = 1;
const FENCE_MARK = 2;

/**
 * What the line body[from, to) may be, read in place (no slice for prose lines): `#` after at most
 * three spaces may open a heading, a backtick or `~` a fence (the regexes decide).
 */
function markOf(body: string, from: number, to: number): number {
  for (let i = from; i < from + 4 && i < to; i++) {
    const c = body.charCodeAt(i);
    if (c === 35) return HEADING_MARK;
    if (c === 96 || c === 126) return FENCE_MARK;
    if (c !== 32) return NOT_MARKUP;
  }
  return NOT_MARKUP;
}

/** Each heading's own text, keyed by heading path (a repeated path gets ` (2)`); text before the first heading is `(top)`. */
export function ownSections(body: string): Map<string, OwnSection> {
  const out = new Map<string, OwnSection>();
  const trail: string[] = [];
  let title = TOP_SECTION;
  let level = 0;
  // Offsets into body: a section's text runs from after its heading line to the next heading.
  let textStart = 0;
  let fence: string | null = null;
  const close = (textEnd: number) => {
    const text = body.slice(textStart, textEnd).trim();
    if (level > 0 || text !== '') {
      let key = title;
      for (let n = 2; out.has(key); n++) key = `${title} (${n})`;
      out.set(key, { title: key, level, text });
    }
  };
  for (let at = 0; at <= body.length; ) {
    const newline = body.indexOf('\n', at);
    const lineEnd = newline === -1 ? body.length : newline;
    const next = lineEnd + 1;
    const mark = markOf(body, at, lineEnd);
    // Prose lines (and any line inside a fence but its closing one) need no text of their own.
    if (mark === NOT_MARKUP || (fence !== null && mark !== FENCE_MARK)) {
      at = next;
      continue;
    }
    const line = body.slice(at, lineEnd > at && body.charCodeAt(lineEnd - 1) === 13 ? lineEnd - 1 : lineEnd);
    if (fence !== null) {
      const end = FENCE_CLOSE.exec(line)?.[1];
      if (end && end[0] === fence[0] && end.length >= fence.length) fence = null;
    } else if (mark === FENCE_MARK) {
      fence = FENCE_OPEN.exec(line)?.[1] ?? null;
    } else {
      const heading = HEADING.exec(line);
      if (heading?.[1]) {
        close(at);
        level = heading[1].length;
        trail.length = Math.min(trail.length, level - 1);
        while (trail.length < level - 1) trail.push('');
        trail.push((heading[2] ?? '').trim());
        title = '';
        for (const part of trail) if (part !== '') title = title === '' ? part : `${title} › ${part}`;
        textStart = Math.min(next, body.length);
      }
    }
    at = next;
  }
  close(body.length);
  return out;
}

export function diffSections(beforeBody: string, afterBody: string): SectionDiff[] {
  // The same body has the same sections, each with the same text.
  if (beforeBody === afterBody) return [];
  const before = ownSections(beforeBody);
  const after = ownSections(afterBody);
  const out: SectionDiff[] = [];
  for (const [key, next] of after) {
    const prev = before.get(key);
    if (!prev) out.push({ title: key, level: next.level, status: 'added', before: null, after: next.text });
    else if (prev.text !== next.text) out.push({ title: key, level: next.level, status: 'changed', before: prev.text, after: next.text });
  }
  for (const [key, prev] of before) {
    if (!after.has(key)) out.push({ title: key, level: prev.level, status: 'removed', before: prev.text, after: null });
  }
  return out;
}

type Side = { ok: true; data: Record<string, unknown>; body: string } | { ok: false; error: string };

function readSide(text: string | null): Side {
  if (text === null) return { ok: true, data: {}, body: '' };
  const parsed = parseFrontmatterSide(text);
  return parsed.ok ? { ok: true, data: parsed.value.data, body: parsed.value.body } : parsed;
}

/** Both sides' YAML and bodies split at the fences (no YAML parsed), when both split and stay within the size limit. */
function splitBoth(beforeText: string | null, afterText: string | null): { yaml: [string, string]; body: [string, string] } | null {
  const sides = [beforeText, afterText].map((text) => (text === null ? { ok: true as const, yaml: '', body: '' } : splitFrontmatter(text)));
  const [b, a] = sides;
  if (!b?.ok || !a?.ok || exceedsUtf8Bytes(b.yaml, MAX_FRONTMATTER_BYTES) || exceedsUtf8Bytes(a.yaml, MAX_FRONTMATTER_BYTES)) return null;
  return { yaml: [b.yaml, a.yaml], body: [b.body, a.body] };
}

/** Frontmatter fields only (the field table). */
export function diffFrontmatter(beforeText: string | null, afterText: string | null): FieldChange[] | Unparsable {
  const result = diffMarkdown(beforeText, afterText);
  return result.kind === 'unparsable' ? result : result.frontmatter;
}

export function diffMarkdown(beforeText: string | null, afterText: string | null): MarkdownDiffResult | Unparsable {
  // The cheap path: parse only the frontmatter blocks that differ (frontmatter-blocks.ts).
  const split = splitBoth(beforeText, afterText);
  const fields = split ? diffFrontmatterBlocks(split.yaml[0], split.yaml[1]) : null;
  if (split && fields) return result(fields, diffSections(split.body[0], split.body[1]));
  const before = readSide(beforeText);
  if (!before.ok) return { kind: 'unparsable', side: 'before', error: before.error };
  const after = readSide(afterText);
  if (!after.ok) return { kind: 'unparsable', side: 'after', error: after.error };
  return result(diffValues(before.data, after.data), diffSections(before.body, after.body));
}

function result(frontmatter: FieldChange[], sections: SectionDiff[]): MarkdownDiffResult {
  return { kind: 'markdown', frontmatter, sections, changed: frontmatter.length > 0 || sections.length > 0 };
}
