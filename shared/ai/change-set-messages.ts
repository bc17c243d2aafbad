/**
 * Turns zod issues from the changeSet schemas into plain-English ContractViolations: each names
 * where in the change set it is (`operations[2].target.path`), what was expected and what was
 * found, and how to fix it. Also the protocol by which the schemas' own refinements carry a code
 * and a hint through zod (`addViolation`). Used by change-set.ts and change-set-legacy.ts.
 */
import * as z from 'zod';
import { describePath, lookup } from '../bmad/json-pointer.ts';
import type { DataPath } from '../bmad/json-pointer.ts';
import { preview } from '../bmad/schema-issues.ts';
import type { ErrorCode } from '../errors.ts';
import { TargetType } from './session.ts';

/** One thing wrong with a change set, as the model and the person reviewing it are told. */
export interface ContractViolation {
  code: ErrorCode | string;
  message: string;
  /** Where in the change set, e.g. `operations[2].target.path`; '' for the whole change set. */
  path: string;
  hints: string[];
}

export const CONTRACT: ErrorCode = 'AI_CHANGESET_CONTRACT_VIOLATION';
const ID_HINT = "Ids start with a letter or digit and contain only letters, digits, '.', '_', ':' and '-' (no spaces).";

/** What a custom zod issue raised by the schemas carries, so it keeps its own code and hint. */
interface ViolationParams {
  code: ErrorCode;
  hint?: string;
}

/** Raises a custom zod issue that `issueViolations` reports with `code` and `hint`. */
export function addViolation(ctx: z.RefinementCtx, code: ErrorCode, message: string, hint?: string): void {
  const params: ViolationParams = hint === undefined ? { code } : { code, hint };
  ctx.addIssue({ code: 'custom', message, params });
}

export function violation(code: ErrorCode | string, path: string, message: string, hint?: string): ContractViolation {
  return { code, message, path, hints: hint === undefined ? [] : [hint] };
}

type Issue = z.core.$ZodIssue;
/** Renders a data path for people; the legacy shape maps operation paths back to where they came from. */
export type RenderPath = (path: DataPath) => string;

export const renderPath: RenderPath = (path) => (path.length === 0 ? '' : describePath(path));

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return Number.isInteger(value) ? 'a whole number' : 'a number';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return typeof value === 'object' ? 'an object' : typeof value;
}

function expectedWord(expected: string): string {
  const words: Record<string, string> = {
    string: 'a string',
    array: 'a list',
    object: 'an object',
    record: 'an object',
    boolean: 'true or false',
    number: 'a number',
    int: 'a whole number',
  };
  return words[expected] ?? expected;
}

function listValues(values: readonly unknown[]): string {
  return values.map((v) => preview(v)).join(', ');
}

/** " for a step upsert" when `path` lies inside an operation whose kind can be read. */
function operationContext(root: unknown, path: DataPath): string {
  if (path[0] !== 'operations' || typeof path[1] !== 'number') return '';
  const found = lookup(root, path.slice(0, 2));
  if (!found.found || !isRecord(found.value)) return '';
  const { targetType, op } = found.value;
  if (!TargetType.safeParse(targetType).success || (op !== 'upsert' && op !== 'delete')) return '';
  return ` for ${withArticle(String(targetType))} ${op}`;
}

/** "a step", "an agent". */
export function withArticle(word: string): string {
  return `${/^[aeiou]/u.test(word) ? 'an' : 'a'} ${word}`;
}

/** The field names the object schema at `path` allows, choosing union members by the data found there. */
function allowedFields(schema: z.ZodType, root: unknown, path: DataPath): string[] {
  let current: z.ZodType | undefined = schema;
  let value: unknown = root;
  for (let i = 0; i <= path.length && current !== undefined; i++) {
    current = resolveMember(current, value);
    if (i === path.length) break;
    const key = path[i]!;
    if (current instanceof z.ZodObject && typeof key === 'string') current = current.shape[key] as z.ZodType | undefined;
    else if (current instanceof z.ZodArray && typeof key === 'number') current = current.element as z.ZodType;
    else return [];
    value = isRecord(value) || Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

function resolveMember(schema: z.ZodType, value: unknown): z.ZodType | undefined {
  let current: z.ZodType = schema;
  while (current instanceof z.ZodOptional) current = current.unwrap() as z.ZodType;
  if (current instanceof z.ZodDiscriminatedUnion) {
    const key = current.def.discriminator;
    const wanted = isRecord(value) ? value[key] : undefined;
    const member = (current.options as readonly z.ZodType[]).find((o) => o._zod.propValues?.[key]?.has(wanted as never));
    return member === undefined ? undefined : resolveMember(member, value);
  }
  if (current instanceof z.ZodUnion) {
    const members = current.options as readonly z.ZodType[];
    return members.find((o) => (isRecord(value) ? o instanceof z.ZodObject || o instanceof z.ZodRecord : true));
  }
  return current;
}

function unknownFieldHint(schema: z.ZodType, root: unknown, path: DataPath): string {
  const allowed = allowedFields(schema, root, path);
  if (allowed.length === 0) return 'Remove it.';
  const extra = allowed.includes('extensions') ? ' Put anything else inside "extensions".' : ' Remove it.';
  return `Allowed fields here: ${allowed.filter((f) => f !== 'extensions').join(', ')}.${extra}`;
}

/** The values a discriminated union accepts, when `issue` says none of them matched. */
function discriminatorOptions(issue: Issue): readonly unknown[] | undefined {
  return issue.code === 'invalid_union' && 'options' in issue ? issue.options : undefined;
}

/** Violations for one zod issue; several for a list of unknown fields. */
export function issueViolations(
  issue: Issue,
  root: unknown,
  schema: z.ZodType,
  render: RenderPath,
  base: DataPath = [],
): ContractViolation[] {
  const path: DataPath = [...base, ...(issue.path as DataPath)];
  const name = render(path) || 'The change set';
  const parent = path.slice(0, -1);
  const key = path[path.length - 1];
  const found = lookup(root, path);
  const value = found.found ? found.value : undefined;
  const at = (where: DataPath) => (render(where) === '' ? '' : `${render(where)}: `);
  const make = (message: string, hint?: string, where: DataPath = path, code: ErrorCode = CONTRACT): ContractViolation => ({
    code,
    message,
    path: render(where),
    hints: hint === undefined ? [] : [hint],
  });
  const context = operationContext(root, path);

  if (!found.found && path.length > 0 && issue.code !== 'unrecognized_keys' && issue.code !== 'custom') {
    const options = discriminatorOptions(issue);
    const allowed = options === undefined ? undefined : `Allowed values: ${listValues(options)}.`;
    const what = issue.code === 'invalid_type' ? ` (${expectedWord(issue.expected)})` : '';
    return [make(`${at(parent)}"${String(key)}" is required${context}.`, allowed ?? `Add "${String(key)}"${what}.`)];
  }
  switch (issue.code) {
    case 'invalid_type':
      if (path.length === 0) return [make(`The change set must be a JSON object, but it is ${kindOf(value)}.`)];
      return [make(`${name} must be ${expectedWord(issue.expected)}${context}, but it is ${kindOf(value)}.`)];
    case 'unrecognized_keys':
      return issue.keys.map((extra) => {
        const where = [...path, extra];
        if (extra === 'payload' && context.endsWith(' delete')) {
          return make(`${at(path)}"payload" is not allowed${context}.`, 'A delete needs only op, targetType and target.', where);
        }
        return make(`${at(path)}unknown field "${extra}".`, unknownFieldHint(schema, root, path), where);
      });
    case 'invalid_value': {
      const expected = issue.values.length === 1 ? preview(issue.values[0]) : `one of ${listValues(issue.values)}`;
      const hint = `Allowed values: ${listValues(issue.values)}.`;
      return [make(`${name} must be ${expected}${context}, but it is ${preview(value)}.`, hint)];
    }
    case 'invalid_union': {
      const options = discriminatorOptions(issue);
      if (options !== undefined) {
        const allowed = listValues(options);
        return [make(`${name} must be one of ${allowed}, but it is ${preview(value)}.`, `Allowed values: ${allowed}.`)];
      }
      // A member whose type fits but whose checks failed says more than "matches no shape".
      const wrongType = (b: Issue): b is z.core.$ZodIssueInvalidType => b.code === 'invalid_type' && b.path.length === 0;
      const fitting = issue.errors.find((branch) => branch.length > 0 && !branch.some(wrongType));
      if (fitting !== undefined) return fitting.flatMap((inner) => issueViolations(inner, root, schema, render, path));
      const shapes = issue.errors.flatMap((branch) => branch.filter(wrongType)).map((b) => expectedWord(b.expected));
      const expected = shapes.length > 0 ? shapes.join(' or ') : 'one of the allowed shapes';
      return [make(`${name} must be ${expected}, but it is ${kindOf(value)}.`)];
    }
    case 'invalid_format':
      if (issue.format === 'regex') return [make(`${name} is not a valid id: ${preview(value)}.`, ID_HINT)];
      return [make(`${name} is not in the required form: ${preview(value)}.`)];
    case 'too_big':
      if (issue.origin === 'array') {
        return [
          make(
            `${name} has ${Array.isArray(value) ? value.length : 'too many'} items; at most ${Number(issue.maximum)} are allowed.`,
            'Split the change into several smaller change sets.',
          ),
        ];
      }
      return [make(`${name} is too large (at most ${Number(issue.maximum)}).`)];
    case 'too_small':
      if (issue.origin === 'array') {
        const n = Number(issue.minimum);
        return [make(`${name} must have at least ${n} item${n === 1 ? '' : 's'}.`, 'Add at least one operation.')];
      }
      return [make(`${name} must be at least ${Number(issue.minimum)}, but it is ${preview(value)}.`)];
    case 'custom': {
      const params = issue.params as Partial<ViolationParams> | undefined;
      const location = render(path);
      const message = location === '' ? issue.message : `${location}: ${issue.message}`;
      return [make(message, params?.hint, path, params?.code ?? CONTRACT)];
    }
    default:
      return [make(`${name}: ${issue.message}`)];
  }
}
