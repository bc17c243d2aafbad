/** Parsing one side of a semantic diff: JSON and frontmatter text to a value, or the reason it does not parse. */
import { parseJsonText } from '../../bmad/json-text.ts';
import { MAX_TEXT_FILE_BYTES } from '../../bmad/limits.ts';
import { parseFrontmatter, type ParsedFrontmatter } from '../../bmad/frontmatter.ts';

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

export function parseJsonSide(text: string, label: string): Parsed<unknown> {
  // The common case parses straight away; parseJsonText (limits, BOM, where it breaks) explains a failure.
  if (text.charCodeAt(0) !== 0xfeff && text.length <= MAX_TEXT_FILE_BYTES / 4) {
    try {
      return { ok: true, value: JSON.parse(text) as unknown };
    } catch {
      // Fall through for the located error.
    }
  }
  const result = parseJsonText(text, label);
  return result.ok ? { ok: true, value: result.value } : { ok: false, error: result.issues[0]?.message ?? `${label} is not valid JSON.` };
}

export function parseFrontmatterSide(text: string): Parsed<ParsedFrontmatter> {
  const result = parseFrontmatter(text);
  if (result.ok) return { ok: true, value: result.value };
  const problem = result.problems[0];
  return { ok: false, error: problem ? `${problem.message}${problem.line ? ` (line ${problem.line})` : ''}` : 'The frontmatter does not parse.' };
}
