/**
 * Lenient reading of what real models send, in one place (used by the tool registry and the
 * final-answer reader): JSON in a markdown fence or with trailing commas, arguments encoded twice
 * as a JSON string, an object sent twice in a row or missing its last `}` (vLLM's streaming tool
 * parsers do both, vLLM issue #32152), null, "null" or "" for an optional field, numbers and booleans
 * written as strings, a locator object written as its key (`"step:classify"` for `{type, id}`), and an
 * object key in short form (`step:classify`). Each reading has exactly one meaning and is reported
 * as a note ("read step:classify as step:triage/classify"); where two meanings are possible it
 * refuses and lists the candidates instead of choosing.
 */
import type { z } from 'zod';
import { parseObjectKey } from '../object-keys.ts';
import { MAX_JSON_DEPTH, jsonNestsDeeper } from '../json-depth.ts';

export type LenientJson = { ok: true; value: unknown; notes: string[] } | { ok: false; problem: string };

const FENCE = /^```[a-zA-Z]*[ \t]*\n([\s\S]*?)\n?```$/u;

/**
 * Drops commas that stand right before `}` or `]`, outside strings. Hand-written (20 lines) rather
 * than a JSON5 parser, because JSON5 also accepts comments, single quotes and bare keys, which
 * this reader does not want to take on silently.
 */
export function withoutTrailingCommas(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      out += ch;
      if (ch === '\\') out += text[++i] ?? '';
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    if (ch === ',') {
      let j = i + 1;
      while (j < text.length && /\s/u.test(text[j]!)) j++;
      if (text[j] === '}' || text[j] === ']') continue;
    }
    out += ch;
  }
  return out;
}

/** Where the first top-level JSON object or array in `text` ends (just past it), and the depth left open at the end. */
function topLevelEnd(text: string): { end: number | null; openAtEnd: number } {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0) return { end: i + 1, openAtEnd: 0 };
      if (depth < 0) return { end: null, openAtEnd: 0 };
    }
  }
  return { end: null, openAtEnd: inString ? 0 : depth };
}

/**
 * What a server's tool parser did to a streamed object, undone where only one reading is possible:
 * the same object sent twice in a row (`{…}{…}`, both halves equal) is read once, and an object
 * whose only fault is one missing `}` at the very end gets it back. Anything else is left alone.
 */
function parserDamageRepaired(text: string): { ok: true; value: unknown; note: string } | { ok: false } {
  if (!text.startsWith('{')) return { ok: false };
  const { end, openAtEnd } = topLevelEnd(text);
  if (end !== null && end < text.length) {
    const first = tryParse(text.slice(0, end));
    const second = tryParse(text.slice(end).trim());
    if (first.ok && second.ok && JSON.stringify(first.value) === JSON.stringify(second.value)) {
      return { ok: true, value: first.value, note: "read the object sent twice in a row once (the server's tool parser repeated it)" };
    }
    return { ok: false };
  }
  if (end === null && openAtEnd === 1) {
    const closed = tryParse(`${text}}`);
    if (closed.ok) return { ok: true, value: closed.value, note: "added the } missing at the very end (the server's tool parser dropped it)" };
  }
  return { ok: false };
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * One JSON value from model text: a whole-text code fence is unwrapped, trailing commas are
 * dropped, and (with `unwrapString`, which tool-argument readers ask for) a JSON string that itself
 * holds a JSON object is read as that object — the shape of double-encoded tool arguments — and what
 * a server's tool parser did to streamed arguments is undone where only one reading is possible
 * (parserDamageRepaired). A final answer is model text, not parsed by a tool parser: none of that.
 */
export function parseJsonLenient(text: string, options: { unwrapString?: boolean } = {}): LenientJson {
  const notes: string[] = [];
  let body = text.trim();
  const fenced = FENCE.exec(body);
  if (fenced) {
    body = fenced[1]!.trim();
    notes.push('read the JSON inside the markdown code fence');
  }
  // Parsed, it would be walked by recursive code (zod, hashing, the clone to storage).
  if (jsonNestsDeeper(body)) return { ok: false, problem: `The JSON nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep.` };
  let parsed = tryParse(body);
  if (!parsed.ok) {
    const repaired = withoutTrailingCommas(body);
    if (repaired !== body) {
      parsed = tryParse(repaired);
      if (parsed.ok) notes.push('ignored trailing commas');
    }
  }
  if (!parsed.ok && options.unwrapString) {
    const repaired = parserDamageRepaired(body);
    if (repaired.ok) {
      parsed = repaired;
      notes.push(repaired.note);
    }
  }
  if (!parsed.ok) return { ok: false, problem: 'The text is not valid JSON.' };
  let value = parsed.value;
  if (options.unwrapString && typeof value === 'string' && value.trim().startsWith('{')) {
    const inner = parseJsonLenient(value);
    if (inner.ok && isPlainObject(inner.value)) {
      value = inner.value;
      notes.push('read the arguments, sent as a JSON string, as the JSON object inside it', ...inner.notes);
    }
  }
  return { ok: true, value, notes };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type Path = ReadonlyArray<PropertyKey>;

function renderPath(path: Path): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}

function parentAt(root: unknown, path: Path): { parent: Record<string, unknown>; key: string } | null {
  let current: unknown = root;
  for (const step of path.slice(0, -1)) {
    if (typeof current !== 'object' || current === null) return null;
    current = (current as Record<PropertyKey, unknown>)[step as string];
  }
  const key = path.at(-1);
  return isPlainObject(current) && typeof key === 'string' ? { parent: current, key } : null;
}

const NUMBER_TEXT = /^-?\d+(?:\.\d+)?$/u;

type AnySchema = z.ZodType;

/** The schema under wrappers that do not change the shape a value must have (optional, nullable, default, a pipe's input). */
function unwrapped(schema: AnySchema): AnySchema {
  let current = schema;
  for (let depth = 0; depth < 20; depth++) {
    const def = current._zod.def as unknown as { type: string; innerType?: AnySchema; in?: AnySchema };
    if (def.innerType && ['optional', 'nullable', 'default', 'prefault', 'readonly', 'nonoptional'].includes(def.type)) current = def.innerType;
    else if (def.type === 'pipe' && def.in) current = def.in;
    else break;
  }
  return current;
}

/** The schema of the field at `path` (through objects and arrays), or null where a union or free JSON leaves it open. */
export function schemaAt(schema: AnySchema, path: Path): AnySchema | null {
  let current: AnySchema = schema;
  for (const step of path) {
    const def = unwrapped(current)._zod.def as unknown as { type: string; shape?: Record<string, AnySchema>; element?: AnySchema };
    if (def.type === 'object' && typeof step === 'string' && def.shape && Object.hasOwn(def.shape, step)) current = def.shape[step]!;
    else if (def.type === 'array' && typeof step === 'number' && def.element) current = def.element;
    else return null;
  }
  return current;
}

/** A field the schema lets the caller leave out (z.unknown() is not one: it is required, with any value). */
function isOptional(field: AnySchema | null): boolean {
  return field?._zod.optin === 'optional';
}

/** What models send for "not given": null, the text "null" or an empty text. */
function isBlank(value: unknown): boolean {
  return value === null || (typeof value === 'string' && (value.trim() === '' || value.trim() === 'null'));
}

function shown(value: unknown): string {
  return value === null ? 'null' : JSON.stringify(value);
}

/**
 * A locator object written as its object key: `"step:classify"` where the schema wants
 * `{type, id, workflowId?}`, read as `{type: "step", id: "classify"}` (`"step:wf/classify"` with its
 * workflowId). Only when the prefix is one of the schema's `type` values and the result fits it.
 */
function locatorOf(field: AnySchema | null, text: string): Record<string, string> | null {
  if (!field) return null;
  const def = unwrapped(field)._zod.def as unknown as { type: string; shape?: Record<string, AnySchema> };
  if (def.type !== 'object' || !def.shape?.type || !def.shape.id) return null;
  const typeDef = unwrapped(def.shape.type)._zod.def as unknown as { type: string; entries?: Record<string, unknown> };
  const colon = text.indexOf(':');
  const kind = text.slice(0, colon);
  const rest = text.slice(colon + 1).trim();
  if (colon <= 0 || !rest || typeDef.type !== 'enum' || !Object.values(typeDef.entries ?? {}).includes(kind)) return null;
  const key = parseObjectKey(text.trim());
  const locator: Record<string, string> =
    key?.kind === 'step' && def.shape.workflowId ? { type: 'step', id: key.nodeId, workflowId: key.workflowId } : { type: kind, id: rest };
  return field.safeParse(locator).success ? locator : null;
}

/** The one repair a zod issue allows, as a note, or null. Changes `root` in place. */
function repair(root: unknown, issue: z.core.$ZodIssue, prefix: string, schema: AnySchema): string | null {
  const at = parentAt(root, issue.path);
  if (!at || !Object.hasOwn(at.parent, at.key)) return null;
  const value = at.parent[at.key];
  const where = `${prefix}${renderPath(issue.path)}`;
  if (value === null && (issue.code === 'invalid_type' || issue.code === 'invalid_union')) {
    delete at.parent[at.key];
    return `read "${where}": null as not given`;
  }
  if (issue.code !== 'invalid_type' || typeof value !== 'string') return null;
  // "null" or "" where an optional number, boolean, object… is wanted: not given. (Where a text is
  // wanted, "" may be the text meant, e.g. an empty file: never read as absent here.)
  if (isBlank(value) && isOptional(schemaAt(schema, issue.path))) {
    delete at.parent[at.key];
    return `read "${where}": ${shown(value)} as not given`;
  }
  if ((issue.expected === 'number' || issue.expected === 'int') && NUMBER_TEXT.test(value.trim())) {
    at.parent[at.key] = Number(value.trim());
    return `read "${where}": "${value}" as the number ${Number(value.trim())}`;
  }
  if (issue.expected === 'boolean' && (value === 'true' || value === 'false')) {
    at.parent[at.key] = value === 'true';
    return `read "${where}": "${value}" as ${value}`;
  }
  if (issue.expected === 'object') {
    const locator = locatorOf(schemaAt(schema, issue.path), value);
    if (locator) {
      at.parent[at.key] = locator;
      return `read "${where}": "${value}" as ${JSON.stringify(locator)}`;
    }
  }
  return null;
}

/**
 * Tool arguments only: every optional field sent as null, "null" or "" is left out, whatever its
 * type, because no `builder.*` argument gives a blank a meaning of its own (a session id "" or
 * "null" is not another session). Walks the schema's objects and arrays; free JSON is never entered.
 */
function dropBlankOptionals(schema: AnySchema, value: unknown, path: PropertyKey[], prefix: string, notes: string[]): void {
  const def = unwrapped(schema)._zod.def as unknown as { type: string; shape?: Record<string, AnySchema>; element?: AnySchema };
  if (def.type === 'object' && def.shape && isPlainObject(value)) {
    for (const key of Object.keys(value)) {
      const field = def.shape[key];
      if (!field) continue;
      if (isOptional(field) && isBlank(value[key])) {
        notes.push(`read "${prefix}${renderPath([...path, key])}": ${shown(value[key])} as not given`);
        delete value[key];
      } else dropBlankOptionals(field, value[key], [...path, key], prefix, notes);
    }
  } else if (def.type === 'array' && def.element && Array.isArray(value)) {
    value.forEach((item, index) => dropBlankOptionals(def.element!, item, [...path, index], prefix, notes));
  }
}

/**
 * Parses `value` with `schema`, first repairing only what the schema pins down: a null where it
 * wants a value is read as absent, "null" or "" where it wants an optional number, boolean or
 * object likewise, a numeric string where it wants a number as that number, "true"/"false" where
 * it wants a boolean as the boolean, and a locator's key (`"step:classify"`) where it wants the
 * locator object as that object. With `blankOptionals` (tool arguments) every optional field sent
 * blank is left out first (dropBlankOptionals). Fields the schema leaves open (free JSON like an
 * agent definition) are never touched. The input is not changed; the repaired copy is returned as
 * `value`, also when the parse still fails (for a caller with its own reporting).
 */
export function parseLenient<S extends z.ZodType>(
  schema: S,
  value: unknown,
  options: { pathPrefix?: string; blankOptionals?: boolean } = {},
): { result: z.ZodSafeParseResult<z.output<S>>; value: unknown; notes: string[] } {
  const notes: string[] = [];
  const prefix = options.pathPrefix ?? '';
  const working: unknown = value === undefined ? undefined : structuredClone(value);
  if (options.blankOptionals) dropBlankOptionals(schema, working, [], prefix, notes);
  // Each pass fixes at least one field, so the number of passes is bounded by the fields there are.
  for (let pass = 0; pass < 200; pass++) {
    const result = schema.safeParse(working);
    if (result.success) return { result, value: working, notes };
    const fixed = result.error.issues.map((issue) => repair(working, issue, prefix, schema)).filter((n): n is string => n !== null);
    if (fixed.length === 0) return { result, value: working, notes };
    notes.push(...fixed);
  }
  return { result: schema.safeParse(working), value: working, notes };
}

// ---- object keys in short form -----------------------------------------------------------------

export type KeyReading =
  | { kind: 'exact'; key: string }
  | { kind: 'interpreted'; key: string; note: string }
  | { kind: 'ambiguous'; key: string; candidates: string[] }
  | { kind: 'unknown'; key: string };

/**
 * Reads an object key against the keys the package has. A full key is taken as it is (even one
 * that does not exist yet: it may be created). `step:<nodeId>` names the one step with that node
 * id in any workflow, and `asset:<tail>` the one asset whose path ends in `/<tail>`; several
 * matches are ambiguous, none is unknown.
 */
export function readObjectKey(key: string, known: readonly string[]): KeyReading {
  const text = key.trim();
  const parsed = parseObjectKey(text);
  if (parsed && !(parsed.kind === 'asset' && !parsed.path.startsWith('assets/'))) return { kind: 'exact', key: text };
  let candidates: string[] = [];
  if (text.startsWith('step:') && !text.includes('/')) {
    const nodeId = text.slice('step:'.length);
    candidates = known.filter((k) => k.startsWith('step:') && k.endsWith(`/${nodeId}`));
  } else if (text.startsWith('asset:')) {
    const tail = text.slice('asset:'.length).replace(/^\/+/u, '');
    candidates = known.filter((k) => k.startsWith('asset:') && (k === `asset:assets/${tail}` || k.endsWith(`/${tail}`)));
  } else {
    return { kind: 'unknown', key: text };
  }
  const unique = [...new Set(candidates)].sort();
  if (unique.length === 1) return { kind: 'interpreted', key: unique[0]!, note: `read ${text} as ${unique[0]}` };
  if (unique.length > 1) return { kind: 'ambiguous', key: text, candidates: unique };
  // An asset path without its folder that matches nothing is still a valid (new) asset key.
  return parsed ? { kind: 'exact', key: text } : { kind: 'unknown', key: text };
}
