/**
 * The frontmatter field table without parsing what did not change: a block-style YAML mapping is
 * cut into its top-level keys' blocks (the key line and the indented lines under it); a block
 * whose text is the same on both sides has the same value, so only the blocks that differ are
 * parsed (each through parseFrontmatter, with its limits). Anything the cut cannot vouch for —
 * anchors, aliases, tags, directives, flow or sequence documents, a repeated key, a block that
 * does not parse alone — answers null, and the caller parses the whole frontmatter instead. This
 * keeps the diff of a typical step edit (one field) near the cost of its text diff.
 */
import { parseFrontmatter } from '../../bmad/frontmatter.ts';
import type { FieldChange } from './types.ts';
import { diffValues } from './values.ts';

/** A value position that starts an anchor, alias or tag, or a directive line: the cut cannot vouch for those. */
const UNSAFE = /(?:^|[\s[{,:-])[&*!]\S|^%/mu;
const KEY_LINE = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#:'"[\]{}>|&*!%@`-][^:#]*?)[ \t]*:(?:[ \t\r]|$)/u;

/** The top-level blocks of a block mapping by key, in order; null when the text is not that simple. */
export function topLevelBlocks(yaml: string): Map<string, string> | null {
  if (UNSAFE.test(yaml)) return null;
  const blocks = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of yaml.split('\n')) {
    const blank = /^[ \t\r]*(?:#.*)?$/u.test(line);
    if (blank || /^[ \t]/u.test(line)) {
      if (!blank && current === null) return null;
      current?.push(line);
      continue;
    }
    const key = KEY_LINE.exec(line)?.[1];
    if (key === undefined) return null;
    const name = key.startsWith('"') || key.startsWith("'") ? key.slice(1, -1) : key;
    if (blocks.has(name)) return null;
    current = [line];
    blocks.set(name, current);
  }
  // Trailing blank and comment lines belong to no value.
  const out = new Map<string, string>();
  for (const [key, lines] of blocks) {
    let end = lines.length;
    while (end > 1 && /^[ \t\r]*(?:#.*)?$/u.test(lines[end - 1]!)) end--;
    out.set(key, (end === lines.length ? lines : lines.slice(0, end)).join('\n'));
  }
  return out;
}

/**
 * A one-line `key: "text"` or `key: ["a", "b"]` without escapes, comments or mappings reads the same
 * as JSON and as YAML 1.2, so JSON.parse reads it (the yaml parser's set-up costs more than the
 * line); anything else goes to the yaml parser.
 */
const JSON_LINE = /^[^:]+:[ \t]*((?:"[^"\\\n#]*")|(?:\[[^\]\\{#\n]*\]))[ \t\r]*$/u;

function parseBlock(block: string): Record<string, unknown> | null {
  const simple = JSON_LINE.exec(block);
  if (simple?.[1]) {
    try {
      const key = KEY_LINE.exec(block)?.[1];
      if (key !== undefined && !key.startsWith('"') && !key.startsWith("'")) return { [key]: JSON.parse(simple[1]) as unknown };
    } catch {
      // Not JSON after all (e.g. a plain-scalar list): the yaml parser decides.
    }
  }
  const parsed = parseFrontmatter(`---\n${block}\n---\n`);
  return parsed.ok ? parsed.value.data : null;
}

/** The field changes between two frontmatter texts, or null when the whole texts must be parsed. */
export function diffFrontmatterBlocks(beforeYaml: string, afterYaml: string): FieldChange[] | null {
  const before = topLevelBlocks(beforeYaml);
  const after = topLevelBlocks(afterYaml);
  if (!before || !after) return null;
  const prev: Record<string, unknown> = {};
  const next: Record<string, unknown> = {};
  for (const [key, text] of before) {
    if (after.get(key) === text) continue;
    const value = parseBlock(text);
    if (!value || !Object.hasOwn(value, key)) return null;
    prev[key] = value[key];
  }
  for (const [key, text] of after) {
    if (before.get(key) === text) continue;
    const value = parseBlock(text);
    if (!value || !Object.hasOwn(value, key)) return null;
    next[key] = value[key];
  }
  return diffValues(prev, next);
}
