/**
 * Finds `assets/...` paths that a step refers to, in its body (`@pkg/assets/x.md`, `assets/x.md`)
 * and in its frontmatter values, so stage 3 can check that each one exists.
 */
import type { DataPath } from './json-pointer.ts';

/** `assets/` (optionally after `@pkg/`) not glued to a longer path; a trailing "." is punctuation. */
const ASSET_REF = /(?<![A-Za-z0-9._/@-])(?:@pkg\/)?(assets\/[A-Za-z0-9._/-]*[A-Za-z0-9_/-])/gu;

export function assetRefsInText(text: string): Array<{ path: string; index: number }> {
  // Every match contains "assets/"; most strings (ids, titles, paths) do not, and skip the regex.
  if (!text.includes('assets/')) return [];
  return [...text.matchAll(ASSET_REF)].map((m) => ({ path: m[1]!, index: m.index }));
}

/**
 * With the 1-based line numbers of the text. Lines are counted only up to each reference found
 * (matches come in order, so one pass at most): most bodies name no asset, and indexing every line
 * of every body first was a quarter of a 10 MB import's validation.
 */
export function assetRefsInBody(body: string, bodyStartLine: number): Array<{ path: string; line: number }> {
  let line = bodyStartLine;
  let counted = 0;
  return assetRefsInText(body).map(({ path, index }) => {
    for (let at = body.indexOf('\n', counted); at !== -1 && at < index; at = body.indexOf('\n', at + 1)) line++;
    counted = index;
    return { path, line };
  });
}

/**
 * Asset paths in every string of the frontmatter except `outputs` (files the step will write). The
 * data was depth-checked when the frontmatter was parsed.
 */
export function assetRefsInFrontmatter(data: Record<string, unknown>): Array<{ path: string; at: DataPath }> {
  const found: Array<{ path: string; at: DataPath }> = [];
  // Children are pushed in reverse so that popping visits them in document order.
  const stack: Array<[unknown, DataPath]> = Object.entries(data)
    .filter(([key]) => key !== 'outputs')
    .map(([key, value]): [unknown, DataPath] => [value, [key]])
    .reverse();
  while (stack.length > 0) {
    const [value, at] = stack.pop()!;
    if (typeof value === 'string') {
      for (const ref of assetRefsInText(value)) found.push({ path: ref.path, at });
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], [...at, i]]);
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], [...at, entries[i]![0]]]);
    }
  }
  return found;
}

/** A reference ending in `/` names a folder: it exists when some asset lives under it. */
export function assetRefExists(ref: string, assetPaths: ReadonlySet<string>): boolean {
  if (!ref.endsWith('/')) return assetPaths.has(ref);
  for (const path of assetPaths) if (path.startsWith(ref)) return true;
  return false;
}
