/**
 * Field-by-field comparison of parsed JSON/YAML values: objects recurse into `a.b` paths, arrays of
 * equal length into `a[i]`, anything else compares whole. One walk over both values, no sorting
 * or stringifying, so a large file costs what it weighs.
 */
import type { FieldChange } from './types.ts';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep equality of JSON-like values; key order does not matter. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => sameValue(item, b[i]));
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => Object.hasOwn(b, k) && sameValue(a[k], b[k]));
  }
  // NaN, and dates the YAML parser may produce, compare by value.
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  return false;
}

function join(path: string, key: string): string {
  return /^[A-Za-z_$][\w$-]*$/u.test(key) ? (path ? `${path}.${key}` : key) : `${path}[${JSON.stringify(key)}]`;
}

/** The differing fields of two values, nested values as paths; `skip` leaves top-level keys out. */
export function diffValues(before: unknown, after: unknown, path = '', skip: ReadonlySet<string> = new Set()): FieldChange[] {
  const out: FieldChange[] = [];
  walk(before, after, path, out, skip);
  return out;
}

function walk(before: unknown, after: unknown, path: string, out: FieldChange[], skip: ReadonlySet<string>): void {
  if (isRecord(before) && isRecord(after)) {
    for (const key of Object.keys(before)) {
      if (skip.has(key)) continue;
      if (!Object.hasOwn(after, key)) out.push({ path: join(path, key), kind: 'removed', before: before[key] });
      else walk(before[key], after[key], join(path, key), out, new Set());
    }
    for (const key of Object.keys(after)) {
      if (!skip.has(key) && !Object.hasOwn(before, key)) out.push({ path: join(path, key), kind: 'added', after: after[key] });
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    before.forEach((item, i) => walk(item, after[i], `${path}[${i}]`, out, new Set()));
    return;
  }
  if (!sameValue(before, after)) out.push({ path: path || '(value)', kind: 'changed', before, after });
}

/** A short one-line rendering of a value for a table cell. */
export function showValue(value: unknown): string {
  if (value === undefined) return '—';
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? String(value);
}
