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

/** Whether yaml[from, to) is blank or a comment as /^[ \t\r]*(?:#.*)?$/u reads it (`.` stops at \r, U+2028, U+2029). */
function isBlankLine(yaml: string, from: number, to: number): boolean {
  let i = from;
  while (i < to && (yaml.charCodeAt(i) === 32 || yaml.charCodeAt(i) === 9 || yaml.charCodeAt(i) === 13)) i++;
  if (i === to) return true;
  if (yaml.charCodeAt(i) !== 35) return false;
  for (; i < to; i++) {
    const c = yaml.charCodeAt(i);
    if (c === 13 || c === 0x2028 || c === 0x2029) return false;
  }
  return true;
}

/** Whether c may be in a plain identifier key: A-Z, a-z, 0-9, `_`, `-`. */
function isKeyChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45;
}

/**
 * The key of a line `name: …` whose key is an identifier (`[A-Za-z_][\w-]*`, then `:` and a space,
 * tab, \r or the end), read without the regex; KEY_LINE gives the same key for such a line.
 * Undefined for any other line, which KEY_LINE then reads.
 */
function plainKeyAt(yaml: string, from: number, to: number): string | undefined {
  const c = yaml.charCodeAt(from);
  if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95)) return undefined;
  let i = from + 1;
  while (i < to && isKeyChar(yaml.charCodeAt(i))) i++;
  if (yaml.charCodeAt(i) !== 58) return undefined;
  const after = i + 1 < to ? yaml.charCodeAt(i + 1) : -1;
  return after === -1 || after === 32 || after === 9 || after === 13 ? yaml.slice(from, i) : undefined;
}

/**
 * The top-level blocks of a block mapping by key, in order; null when the text is not that simple.
 * One pass by offsets: a block is the text from its key line to its last non-blank line (trailing
 * blank and comment lines belong to no value), sliced once.
 */
export function topLevelBlocks(yaml: string): Map<string, string> | null {
  if (UNSAFE.test(yaml)) return null;
  const out = new Map<string, string>();
  let key: string | null = null;
  let blockStart = 0;
  let blockEnd = 0;
  for (let at = 0; at <= yaml.length; ) {
    const newline = yaml.indexOf('\n', at);
    const lineEnd = newline === -1 ? yaml.length : newline;
    const first = yaml.charCodeAt(at);
    if (!isBlankLine(yaml, at, lineEnd)) {
      if (first === 32 || first === 9) {
        if (key === null) return null;
      } else {
        const found = plainKeyAt(yaml, at, lineEnd) ?? KEY_LINE.exec(yaml.slice(at, lineEnd))?.[1];
        if (found === undefined) return null;
        if (key !== null) out.set(key, yaml.slice(blockStart, blockEnd));
        key = found.startsWith('"') || found.startsWith("'") ? found.slice(1, -1) : found;
        if (out.has(key)) return null;
        blockStart = at;
      }
      blockEnd = lineEnd;
    }
    at = lineEnd + 1;
  }
  if (key !== null) out.set(key, yaml.slice(blockStart, blockEnd));
  return out;
}

/**
 * A one-line `key: "text"` or `key: ["a", "b"]` without escapes, comments or mappings reads the same
 * as JSON and as YAML 1.2, so JSON.parse reads it (the yaml parser's set-up costs more than the
 * line); anything else goes to the yaml parser.
 */
const JSON_LINE = /^[^:]+:[ \t]*((?:"[^"\\\n#]*")|(?:\[[^\]\\{#\n]*\]))[ \t\r]*$/u;

/** One block's value by its key (`key`: as topLevelBlocks names it, quotes taken off). */
function parseBlock(block: string, key: string): Record<string, unknown> | null {
  const simple = JSON_LINE.exec(block);
  if (simple?.[1]) {
    try {
      // An unquoted key is the name itself; a quoted one may hold escapes, so the yaml parser reads it.
      if (!block.startsWith('"') && !block.startsWith("'")) return { [key]: JSON.parse(simple[1]) as unknown };
    } catch {
      // Not JSON after all (e.g. a plain-scalar list): the yaml parser decides.
    }
  }
  const parsed = parseFrontmatter(`---\n${block}\n---\n`);
  return parsed.ok ? parsed.value.data : null;
}

/** The field changes between two frontmatter texts, or null when the whole texts must be parsed. */
export function diffFrontmatterBlocks(beforeYaml: string, afterYaml: string): FieldChange[] | null {
  // Equal texts have every block equal: no block would be parsed, so one cut says all there is.
  if (beforeYaml === afterYaml) return topLevelBlocks(beforeYaml) ? [] : null;
  const before = topLevelBlocks(beforeYaml);
  const after = topLevelBlocks(afterYaml);
  if (!before || !after) return null;
  const prev: Record<string, unknown> = {};
  const next: Record<string, unknown> = {};
  for (const [key, text] of before) {
    if (after.get(key) === text) continue;
    const value = parseBlock(text, key);
    if (!value || !Object.hasOwn(value, key)) return null;
    prev[key] = value[key];
  }
  for (const [key, text] of after) {
    if (before.get(key) === text) continue;
    const value = parseBlock(text, key);
    if (!value || !Object.hasOwn(value, key)) return null;
    next[key] = value[key];
  }
  return diffValues(prev, next);
}
