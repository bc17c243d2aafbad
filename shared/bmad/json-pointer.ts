/** RFC 6901 JSON pointers for issue locations, and a safe lookup of the value a path names. */

export type DataPath = ReadonlyArray<string | number>;

export function toPointer(path: ReadonlyArray<PropertyKey>): string {
  return path.map((key) => '/' + String(key).replaceAll('~', '~0').replaceAll('/', '~1')).join('');
}

/** Own-property lookup along a path; `{found: false}` when any step is missing. */
export function lookup(root: unknown, path: ReadonlyArray<PropertyKey>): { found: true; value: unknown } | { found: false } {
  let current: unknown = root;
  for (const key of path) {
    if (typeof key === 'symbol' || current === null || typeof current !== 'object') return { found: false };
    const k = String(key);
    if (!Object.hasOwn(current, k)) return { found: false };
    current = (current as Record<string, unknown>)[k];
  }
  return { found: true, value: current };
}

/** A human name for a data path: `nodes[3].type`, `persona.principles`, or `(root)`. */
export function describePath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(root)' : out;
}
