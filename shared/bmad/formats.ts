/**
 * The string formats of the .bmad v1.1 schemas, as plain predicates usable without a JSON Schema
 * engine (no eval in Workers). Semantics are those of JSON Schema's `pattern`, `format: "date-time"`
 * and `type: "integer"` as ajv + ajv-formats apply them; the spec-conformance suite (test/spec)
 * checks that they agree.
 */

/** Every id in a package (agents, nodes, workflows): a letter or digit, then letters, digits, `._:-`. */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/u;
/** `schemaVersion` is the string "1.1", optionally with a patch number. */
export const SCHEMA_VERSION_PATTERN = /^1\.1(\.\d+)?$/u;
/** `bmad.json` `version`: SemVer core with optional pre-release and build parts. */
export const SEMVER_PATTERN = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/u;
/** `bmad.json` `integrity.sha256`: 64 hex digits. */
export const SHA256_PATTERN = /^[a-fA-F0-9]{64}$/u;

const FULL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/u;
const FULL_TIME = /^(\d{2}):(\d{2}):(\d{2}(?:\.\d+)?)(?:(z)|([+-])(\d{2})(?::?(\d{2}))?)?$/iu;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function isFullDate(text: string): boolean {
  const m = FULL_DATE.exec(text);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const max = month === 2 && isLeapYear(year) ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
  return day <= max;
}

/** RFC 3339 §5.6 full-time; the offset is required, and 60 seconds only at 23:59 UTC (a leap second). */
function isFullTime(text: string): boolean {
  const m = FULL_TIME.exec(text);
  if (!m) return false;
  const hour = Number(m[1]);
  const minute = Number(m[2]);
  const second = Number(m[3]);
  const zulu = m[4] !== undefined;
  if (!zulu && m[5] === undefined) return false;
  const sign = m[5] === '-' ? -1 : 1;
  const offsetHour = Number(m[6] ?? 0);
  const offsetMinute = Number(m[7] ?? 0);
  if (offsetHour > 23 || offsetMinute > 59) return false;
  if (hour <= 23 && minute <= 59 && second < 60) return true;
  // A leap second is only ever inserted at 23:59:60 UTC: shift the local time to UTC to check.
  const utcMinute = minute - offsetMinute * sign;
  const utcHour = hour - offsetHour * sign - (utcMinute < 0 ? 1 : 0);
  return (utcHour === 23 || utcHour === -1) && (utcMinute === 59 || utcMinute === -1) && second < 61;
}

/**
 * JSON Schema `format: "date-time"` (RFC 3339 §5.6): `2026-03-02T09:30:00Z`,
 * `2026-03-02t09:30:00.5+02:00`. The date and time may be separated by `T`, `t` or whitespace.
 */
export function isDateTime(text: string): boolean {
  const parts = text.split(/t|\s/iu);
  return parts.length === 2 && isFullDate(parts[0] ?? '') && isFullTime(parts[1] ?? '');
}

/** JSON Schema `type: "integer"`: any finite number without a fractional part (1e20 included). */
export function isJsonInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value);
}
