/**
 * The semantic diff of a Markdown file with YAML frontmatter (step files, workflow.md): the
 * frontmatter as a field table (via `yaml`, through shared/bmad/frontmatter.ts) and the body by
 * section (ATX headings, via shared/bmad/markdown-sections.ts). A section is keyed by its heading
 * path and holds only its own text (up to the next heading of any level), so an edit inside a
 * subsection marks that subsection, not every heading above it.
 */
import { markdownSections } from '../../bmad/markdown-sections.ts';
import { parseFrontmatterSide } from './parse.ts';
import type { FieldChange, MarkdownDiffResult, SectionDiff, Unparsable } from './types.ts';
import { diffValues } from './values.ts';

interface OwnSection {
  title: string;
  level: number;
  text: string;
}

export const TOP_SECTION = '(top)';

/** Each heading's own text, keyed by heading path (a repeated path gets ` (2)`); text before the first heading is `(top)`. */
export function ownSections(body: string): Map<string, OwnSection> {
  const lines = body.split('\n');
  const headings = markdownSections(body);
  const out = new Map<string, OwnSection>();
  const firstLine = headings[0]?.line ?? lines.length + 1;
  const top = lines.slice(0, firstLine - 1).join('\n');
  if (top.trim() !== '') out.set(TOP_SECTION, { title: TOP_SECTION, level: 0, text: top });
  const trail: string[] = [];
  headings.forEach((h, i) => {
    trail.length = Math.min(trail.length, h.level - 1);
    while (trail.length < h.level - 1) trail.push('');
    trail.push(h.title);
    const path = trail.filter((t) => t !== '').join(' › ');
    const end = headings[i + 1]?.line ?? lines.length + 1;
    let key = path;
    for (let n = 2; out.has(key); n++) key = `${path} (${n})`;
    out.set(key, { title: key, level: h.level, text: lines.slice(h.line, end - 1).join('\n').trim() });
  });
  return out;
}

export function diffSections(beforeBody: string, afterBody: string): SectionDiff[] {
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

/** Frontmatter fields only (the field table). */
export function diffFrontmatter(beforeText: string | null, afterText: string | null): FieldChange[] | Unparsable {
  const result = diffMarkdown(beforeText, afterText);
  return result.kind === 'unparsable' ? result : result.frontmatter;
}

export function diffMarkdown(beforeText: string | null, afterText: string | null): MarkdownDiffResult | Unparsable {
  const before = readSide(beforeText);
  if (!before.ok) return { kind: 'unparsable', side: 'before', error: before.error };
  const after = readSide(afterText);
  if (!after.ok) return { kind: 'unparsable', side: 'after', error: after.error };
  const frontmatter = diffValues(before.data, after.data);
  const sections = diffSections(before.body, after.body);
  return { kind: 'markdown', frontmatter, sections, changed: frontmatter.length > 0 || sections.length > 0 };
}
