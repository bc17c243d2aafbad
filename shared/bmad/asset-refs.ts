/**
 * Finds `assets/...` paths that a step refers to, in its body (`@pkg/assets/x.md`, `assets/x.md`)
 * and in its frontmatter values, so stage 3 can check that each one exists.
 */
import type { DataPath } from './json-pointer.ts';

/** `assets/` (optionally after `@pkg/`) not glued to a longer path; a trailing "." is punctuation. */
const ASSET_REF = /(?<![A-Za-z0-9._/@-])(?:@pkg\/)?(assets\/[A-Za-z0-9._/-]*[A-Za-z0-9_/-])/gu;

export function assetRefsInText(text: string): Array<{ path: string; index: number }> {
  return [...text.matchAll(ASSET_REF)].map((m) => ({ path: m[1]!, index: m.index }));
}

/** With the 1-based line numbers of the text. */
export function assetRefsInBody(body: string, bodyStartLine: number): Array<{ path: string; line: number }> {
  const lineStarts = [0];
  for (let i = 0; i < body.length; i++) if (body.charCodeAt(i) === 10) lineStarts.push(i + 1);
  return assetRefsInText(body).map(({ path, index }) => {
    let line = 0;
    while (line + 1 < lineStarts.length && lineStarts[line + 1]! <= index) line++;
    return { path, line: bodyStartLine + line };
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
