/**
 * Where a link written in a BMAD-METHOD file points, among the uploaded files: relative to the
 * file (`./step-02.md`, `../template.md`), or installed-path style (`{project-root}/_bmad/bmm/
 * workflows/x/steps/step-01.md`), matched by its longest path suffix. Other `{variable}` paths
 * are outputs decided at run time and are not links.
 */
export type Resolved = { kind: 'file'; path: string } | { kind: 'missing' } | { kind: 'outside' } | { kind: 'variable' };

function suffixMatch(rest: string, files: ReadonlyMap<string, string>, prefer: ReadonlySet<string>): string | undefined {
  const wanted = rest.split('/').filter(Boolean);
  let best: string | undefined;
  let bestScore = 0;
  for (const path of [...prefer, ...files.keys()]) {
    const segments = path.split('/');
    let score = 0;
    while (score < wanted.length && score < segments.length && wanted[wanted.length - 1 - score] === segments[segments.length - 1 - score]) score++;
    if (score > bestScore) {
      best = path;
      bestScore = score;
    }
  }
  return bestScore > 0 ? best : undefined;
}

export function resolveTarget(fromPath: string, target: string, files: ReadonlyMap<string, string>, steps: ReadonlySet<string>): Resolved {
  const clean = target.trim().replace(/^['"]|['"]$/gu, '');
  if (clean.includes('{')) {
    if (!/^\{project-root\}/u.test(clean)) return { kind: 'variable' };
    const found = suffixMatch(clean.slice(clean.lastIndexOf('}') + 1), files, steps);
    return found ? { kind: 'file', path: found } : { kind: 'missing' };
  }
  if (clean.startsWith('/') || /^[A-Za-z]:/u.test(clean) || clean.includes('\\')) return { kind: 'outside' };
  const out = fromPath.split('/').slice(0, -1);
  for (const segment of clean.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length === 0) return { kind: 'outside' };
      out.pop();
    } else out.push(segment);
  }
  const path = out.join('/');
  if (files.has(path)) return { kind: 'file', path };
  // A bare name ("step-v-03-density.md" in prose) means the sibling file, found above; elsewhere it is missing.
  return { kind: 'missing' };
}
