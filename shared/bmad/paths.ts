/** POSIX path helpers for paths inside a package (zip root relative, `/`-separated). */

/** `workflows/x/workflow.md` → `workflows/x/`; `workflow.md` → `` (the root). */
export function dirOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash + 1);
}

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** A link that does not name a package file: `https://…`, `mailto:…`, `#anchor`, or empty. */
export function isExternalLink(target: string): boolean {
  const clean = target.trim();
  return clean === '' || clean.startsWith('#') || /^[A-Za-z][A-Za-z0-9+.-]*:/u.test(clean);
}

/**
 * Resolves `target` (as written in a Markdown link) against directory `dir`. Returns null for
 * external links (`https:`, `mailto:`), pure anchors, and paths that climb out of the package.
 */
export function resolveLink(dir: string, target: string): string | null {
  const clean = target.trim().replace(/[?#].*$/su, '');
  if (clean === '' || /^[A-Za-z][A-Za-z0-9+.-]*:/u.test(clean)) return null;
  return walkPath([], clean.startsWith('/') ? clean.slice(1) : dir + clean);
}

/** `target` read from the folder `base` (its segments): `.` and empty segments skipped, `..` climbs; null when it climbs out. */
export function walkPath(base: readonly string[], target: string): string | null {
  const out = [...base];
  for (const segment of target.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length === 0) return null;
      out.pop();
    } else out.push(segment);
  }
  return out.join('/');
}

/** A path that stays inside the package: relative, `/`-separated, no `.`/`..`/empty segments, no NUL. */
export function isSafeRelativePath(path: string): boolean {
  if (path === '' || path.startsWith('/') || path.includes('\\') || path.includes('\0')) return false;
  if (/^[A-Za-z]:/u.test(path)) return false;
  return path.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}
