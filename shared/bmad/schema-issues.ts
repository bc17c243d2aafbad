/**
 * Turns zod issues from the .bmad models into human validation issues: one per violation, with a
 * JSON pointer into the file's data, a message a non-engineer understands ("Missing required
 * field: nodeId") and a hint ("Allowed values: step, decision, …").
 */
import * as z from 'zod';
import { ID_PATTERN, SCHEMA_VERSION_PATTERN, SEMVER_PATTERN, SHA256_PATTERN } from './formats.ts';
import { errorIssue } from './issues.ts';
import type { IssueCode, ValidationIssue } from './issues.ts';
import { describePath, lookup, toPointer } from './json-pointer.ts';

/** Where the data came from: YAML needs different advice (quote values) than JSON. */
export type DataSource = 'json' | 'yaml';

type Issue = z.core.$ZodIssue;

/** Keyed by `String(regex)`, which is how zod reports the pattern of a failed `.regex()`. */
const PATTERN_HINTS = new Map<string, { what: string; hint: string }>([
  [
    String(ID_PATTERN),
    {
      what: 'a valid id',
      hint: "Ids start with a letter or digit and contain only letters, digits, '.', '_', ':' and '-' (no spaces).",
    },
  ],
  [String(SCHEMA_VERSION_PATTERN), { what: 'a supported schema version', hint: 'Use the string "1.1".' }],
  [String(SEMVER_PATTERN), { what: 'a SemVer version', hint: 'Use MAJOR.MINOR.PATCH, e.g. 1.0.0 or 1.2.0-beta.1.' }],
  [String(SHA256_PATTERN), { what: 'a SHA-256 hash', hint: 'Use 64 hexadecimal characters, or remove the field.' }],
]);

const FIELD_HINTS: Record<string, string> = {
  stepsDir: '`entry.stepsDir` is not part of v1.1: steps are found through the graph (node.file). Remove it.',
};

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return Number.isInteger(value) ? 'a whole number' : 'a number';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

function expectedWord(expected: string): string {
  switch (expected) {
    case 'string':
      return 'a string';
    case 'array':
      return 'a list';
    case 'object':
    case 'record':
      return 'an object';
    case 'boolean':
      return 'true or false';
    case 'number':
    case 'int':
      return 'a number';
    default:
      return expected;
  }
}

/** A value as a short one-line text for a message (at most 60 characters). */
export function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Known field names of the object schema found at `path`, for "Allowed fields" hints. */
function allowedKeysAt(schema: z.ZodType, path: ReadonlyArray<PropertyKey>): string[] {
  let current: z.ZodType | undefined = schema;
  for (const key of [...path, null]) {
    while (current instanceof z.ZodOptional) current = current.unwrap() as z.ZodType;
    if (current instanceof z.ZodUnion) {
      const options = current.options as readonly z.ZodType[];
      current = options.find((o) => (typeof key === 'number' ? o instanceof z.ZodArray : o instanceof z.ZodObject));
    }
    if (key === null) break;
    if (current instanceof z.ZodObject && typeof key === 'string') current = current.shape[key] as z.ZodType | undefined;
    else if (current instanceof z.ZodArray && typeof key === 'number') current = current.element as z.ZodType;
    else return [];
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

function typeHint(key: PropertyKey | undefined, value: unknown, expected: string, source: DataSource): string | undefined {
  if (source !== 'yaml' || expected !== 'string') return undefined;
  if (typeof value !== 'number' && typeof value !== 'boolean' && value !== null) return undefined;
  const name = String(key ?? 'value');
  if (name === 'schemaVersion') return 'Write schemaVersion: "1.1" with quotes: unquoted 1.1 is a number in YAML.';
  const shown = value === null ? '' : String(value);
  return `Quote the value in YAML, e.g. ${name}: "${shown}"; unquoted it is read as ${kindOf(value)}.`;
}

function convert(issue: Issue, root: unknown, schema: z.ZodType, filePath: string, source: DataSource): ValidationIssue[] {
  const path = issue.path;
  const name = describePath(path);
  const pointer = toPointer(path);
  const key = path[path.length - 1];
  const found = lookup(root, path);
  const value = found.found ? found.value : undefined;
  const make = (code: IssueCode, message: string, hint?: string, at = pointer) =>
    errorIssue(code, filePath, message, { pointer: at, hint, params: code === 'SCHEMA_REQUIRED' ? { field: name } : undefined });

  if (!found.found && path.length > 0 && (issue.code === 'invalid_type' || issue.code === 'invalid_union')) {
    const what = issue.code === 'invalid_type' ? ` (${expectedWord(issue.expected)})` : '';
    return [make('SCHEMA_REQUIRED', `Missing required field: ${name}`, `Add \`${String(key)}\`${what}.`)];
  }
  switch (issue.code) {
    case 'invalid_type': {
      if (path.length === 0) {
        const what = source === 'yaml' ? 'The frontmatter must be a YAML mapping (key: value lines)' : 'The file must contain a JSON object';
        return [make('SCHEMA_TYPE', `${what}, but it is ${kindOf(value)}.`)];
      }
      return [
        make(
          'SCHEMA_TYPE',
          `${name} must be ${expectedWord(issue.expected)}, but it is ${kindOf(value)}.`,
          typeHint(key, value, issue.expected, source),
        ),
      ];
    }
    case 'unrecognized_keys': {
      const allowed = allowedKeysAt(schema, path);
      return issue.keys.map((extra) =>
        make(
          'SCHEMA_UNKNOWN_FIELD',
          `Unknown field: ${describePath([...path, extra])}`,
          FIELD_HINTS[extra] ?? (allowed.length > 0 ? `Allowed fields here: ${allowed.join(', ')}.` : 'Remove it.'),
          toPointer([...path, extra]),
        ),
      );
    }
    case 'invalid_value':
      return [
        make(
          'SCHEMA_ENUM',
          `Invalid value for ${name}: ${preview(value)}`,
          `Allowed values: ${issue.values.map((v) => String(v)).join(', ')}`,
        ),
      ];
    case 'invalid_format': {
      const known = issue.pattern !== undefined ? PATTERN_HINTS.get(issue.pattern) : undefined;
      let hint = known?.hint;
      if (known && source === 'yaml' && String(key) === 'schemaVersion') hint = 'Write schemaVersion: "1.1" (quoted).';
      return [make('SCHEMA_PATTERN', `${name} is not ${known?.what ?? 'in the required form'}: ${preview(value)}`, hint)];
    }
    case 'too_small': {
      if (issue.origin === 'string') return [make('SCHEMA_TOO_SMALL', `${name} must not be empty.`)];
      const n = Number(issue.minimum);
      // A new project starts with no agent (the format needs one): say what to do, not only the rule.
      if (filePath.endsWith('agents.json') && pointer === '/agents') {
        return [make('SCHEMA_TOO_SMALL', `The package has no agent yet: agents must have at least ${n} item${n === 1 ? '' : 's'}.`, 'Create one on the Agents page (New agent).')];
      }
      return [make('SCHEMA_TOO_SMALL', `${name} must have at least ${n} item${n === 1 ? '' : 's'}.`)];
    }
    case 'invalid_union': {
      const expected = issue.errors
        .map((branch) => branch.find((b) => b.code === 'invalid_type'))
        .filter((b): b is z.core.$ZodIssueInvalidType => b !== undefined && b.path.length === 0)
        .map((b) => expectedWord(b.expected));
      const shapes = expected.length > 0 ? expected.join(' or ') : 'one of the allowed shapes';
      return [make('SCHEMA_ONE_OF', `${name} must be ${shapes}, but it is ${kindOf(value)}.`)];
    }
    case 'custom': {
      const format = (issue.params as { format?: string } | undefined)?.format;
      if (format === 'date-time') {
        return [
          make(
            'SCHEMA_FORMAT',
            `${name} is not a valid date-time: ${preview(value)}`,
            value === ''
              ? 'Remove the field, or set an RFC 3339 date-time such as 2026-03-02T09:30:00Z (an empty string is not allowed).'
              : 'Use an RFC 3339 date-time with a timezone, e.g. 2026-03-02T09:30:00Z.',
          ),
        ];
      }
      if (format === 'integer') return [make('SCHEMA_FORMAT', `${name} must be a whole number, but it is ${preview(value)}.`)];
      if (format === 'minimum') return [make('SCHEMA_FORMAT', `${name} must be at least 1, but it is ${preview(value)}.`)];
      return [make('SCHEMA_INVALID', `${name}: ${issue.message}`)];
    }
    default:
      return [make('SCHEMA_INVALID', `${name}: ${issue.message}`)];
  }
}

/** Issues for every violation, in the order zod found them. */
export function schemaIssues(
  issues: readonly Issue[],
  root: unknown,
  schema: z.ZodType,
  filePath: string,
  source: DataSource,
): ValidationIssue[] {
  return issues.flatMap((issue) => convert(issue, root, schema, filePath, source));
}
