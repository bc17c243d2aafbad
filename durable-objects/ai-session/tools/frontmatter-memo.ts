/**
 * Frontmatter parsing remembered per file text, for the session's tools and prompt: a turn reads
 * the same step and workflow files again and again (every `builder.step.read`, the context
 * envelope, the persona's signals), and the YAML parse is most of what such a read costs. A
 * caller gets its own copy of the data, so no caller can change what another one reads.
 */
import { parseFrontmatter, type FrontmatterResult } from '../../../shared/bmad/index.ts';
import type { JsonObject } from '../overlay/package-lookups.ts';

/** Texts remembered (the oldest is forgotten first): far more than one workflow's files. */
export const KEPT_TEXTS = 256;

const kept = new Map<string, FrontmatterResult>();

/** parseFrontmatter(markdown), parsed once per text while it is remembered. */
export function parseFrontmatterOnce(markdown: string): FrontmatterResult {
  let result = kept.get(markdown);
  if (result === undefined) {
    result = parseFrontmatter(markdown);
    kept.set(markdown, result);
    if (kept.size > KEPT_TEXTS) kept.delete(kept.keys().next().value!);
  }
  // The strings are immutable; the data and problems are objects a caller could change.
  return result.ok ? { ok: true, value: { ...result.value, data: structuredClone(result.value.data) } } : structuredClone(result);
}

/** The frontmatter data of a Markdown file, or null when it has none that parses (as package-lookups' frontmatterOf). */
export function frontmatterDataOf(markdown: string | null): JsonObject | null {
  if (markdown === null) return null;
  const parsed = parseFrontmatterOnce(markdown);
  return parsed.ok ? parsed.value.data : null;
}
