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

const NONE: ReadonlySet<string> = new Set();

/** One segment of a path: `.key` (or `["odd key"]`) for an object, `[i]` for an array. */
function segment(key: string | number): string {
  if (typeof key === 'number') return `[${key}]`;
  return /^[A-Za-z_$][\w$-]*$/u.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** The path text of a stack of segments, built only for a change (most fields compare equal). */
function pathText(prefix: string, stack: ReadonlyArray<string | number>): string {
  const text = prefix + stack.map(segment).join('');
  return (text.startsWith('.') ? text.slice(1) : text) || '(value)';
}

/** The differing fields of two values, nested values as paths; `skip` leaves top-level keys out. */
export function diffValues(before: unknown, after: unknown, path = '', skip: ReadonlySet<string> = NONE): FieldChange[] {
  const out: FieldChange[] = [];
  walk(before, after, path, [], out, skip);
  return out;
}

function walk(before: unknown, after: unknown, prefix: string, stack: Array<string | number>, out: FieldChange[], skip: ReadonlySet<string>): void {
  // Most fields are equal scalars; a scalar before is never walked into (sameValue would say the same).
  if (before === after) return;
  if (typeof before !== 'object' || before === null) {
    out.push({ path: pathText(prefix, stack), kind: 'changed', before, after });
    return;
  }
  if (isRecord(before) && isRecord(after)) {
    for (const key of Object.keys(before)) {
      if (skip.has(key)) continue;
      stack.push(key);
      if (!Object.hasOwn(after, key)) out.push({ path: pathText(prefix, stack), kind: 'removed', before: before[key] });
      else walk(before[key], after[key], prefix, stack, out, NONE);
      stack.pop();
    }
    for (const key of Object.keys(after)) {
      if (skip.has(key) || Object.hasOwn(before, key)) continue;
      stack.push(key);
      out.push({ path: pathText(prefix, stack), kind: 'added', after: after[key] });
      stack.pop();
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    for (let i = 0; i < before.length; i++) {
      stack.push(i);
      walk(before[i], after[i], prefix, stack, out, NONE);
      stack.pop();
    }
    return;
  }
  if (!sameValue(before, after)) out.push({ path: pathText(prefix, stack), kind: 'changed', before, after });
}

/** A short one-line rendering of a value for a table cell. */
export function showValue(value: unknown): string {
  if (value === undefined) return '—';
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? String(value);
}
