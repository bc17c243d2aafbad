/** Parsing one side of a semantic diff: JSON and frontmatter text to a value, or the reason it does not parse. */
import { parseJsonText } from '../../bmad/json-text.ts';
import { parseFrontmatter, type ParsedFrontmatter } from '../../bmad/frontmatter.ts';

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

export function parseJsonSide(text: string, label: string): Parsed<unknown> {
  const result = parseJsonText(text, label);
  return result.ok ? { ok: true, value: result.value } : { ok: false, error: result.issues[0]?.message ?? `${label} is not valid JSON.` };
}

export function parseFrontmatterSide(text: string): Parsed<ParsedFrontmatter> {
  const result = parseFrontmatter(text);
  if (result.ok) return { ok: true, value: result.value };
  const problem = result.problems[0];
  return { ok: false, error: problem ? `${problem.message}${problem.line ? ` (line ${problem.line})` : ''}` : 'The frontmatter does not parse.' };
}
