/**
 * Generates mutated variants of a valid document, driven by its JSON Schema: at every position it
 * deletes required fields, adds unknown ones, adds each missing optional field, and replaces the
 * value with wrong types, bad ids, bad schema versions, bad enums, bad date-times, bad SemVer,
 * bad integers and empty lists. Whether each variant is valid is left to the validators to decide.
 */
import type { JsonSchema } from './reference-validator.ts';

export interface Variant {
  label: string;
  data: unknown;
}

type Path = Array<string | number>;

const WRONG_TYPES: unknown[] = [null, 42, 1.5, true, 'x', '', [], {}, ['x'], { k: 1 }];
const PATTERN_STRINGS = [
  '', ' ', 'a', '7', '-a', '_a', '.a', 'a b', 'a/b', 'ä', 'A.b_c:d-e', 'x:y', 'step-01\n',
  '1.1', '1.1.0', '1.1.12', '1.10', '1.2', '1', 'v1.1', ' 1.1', '1.1 ',
  '0.1.0', '01.2.3', '1.2.3-beta.1', '1.2.3+build.5', '1.2.3-', '1.2.3+', 'v1.2.3',
  'a'.repeat(64), 'A'.repeat(63), 'g'.repeat(64), '0'.repeat(65),
];
const DATE_TIMES = [
  '', '2026-03-02T09:30:00Z', '2026-03-02t09:30:00z', '2026-03-02 09:30:00Z', '2026-03-02T09:30:00.123+02:00',
  '2026-03-02T09:30:00+0200', '2026-03-02T09:30:00', '2026-03-02', '2026-03-02T09:30Z', '2026-02-29T00:00:00Z',
  '2024-02-29T00:00:00Z', '2026-04-31T00:00:00Z', '2026-13-01T00:00:00Z', '2026-03-02T24:00:00Z',
  '2026-12-31T23:59:60Z', '2026-12-31T12:00:60Z', '2026-03-02T09:30:00+24:00', 'yesterday', '2026-03-02T09:30:00ZZ',
];
const INTEGERS: unknown[] = [0, 1, -1, 1.5, 1e20, 2 ** 53 + 2, '1', 524288];
const ENUM_EXTRAS = ['bogus', 'Step', 'STEP', 'step ', 'task', ''];

function resolve(root: JsonSchema, schema: JsonSchema): JsonSchema {
  let current = schema;
  for (let guard = 0; typeof current.$ref === 'string' && guard < 10; guard++) {
    const { $ref, ...rest } = current;
    const target = ($ref as string)
      .replace(/^#\//u, '')
      .split('/')
      .reduce<any>((node, key) => node?.[key], root) as JsonSchema;
    current = { ...target, ...rest };
  }
  return current;
}

/** A small valid value for a schema, used when adding a missing optional field. */
function sample(root: JsonSchema, raw: JsonSchema): unknown {
  const schema = resolve(root, raw);
  if (Array.isArray(schema.anyOf)) return sample(root, schema.anyOf[0] as JsonSchema);
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case 'string':
      if (schema.format === 'date-time') return '2026-01-01T00:00:00Z';
      if (typeof schema.pattern === 'string') {
        if (schema.pattern.includes('1\\.1')) return '1.1';
        if (schema.pattern.includes('a-fA-F')) return 'ab'.repeat(32);
        if (schema.pattern.startsWith('^\\d+')) return '1.0.0';
        return 'id-1';
      }
      return 'text';
    case 'boolean':
      return true;
    case 'integer':
      return 1;
    case 'array':
      return schema.items ? [sample(root, schema.items as JsonSchema)] : [];
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = (schema.required ?? []) as string[];
      return Object.fromEntries(required.map((key) => [key, sample(root, properties[key] ?? {})]));
    }
    default:
      return 'text';
  }
}

function replacementsFor(root: JsonSchema, raw: JsonSchema): unknown[] {
  const schema = resolve(root, raw);
  const values: unknown[] = [...WRONG_TYPES];
  if (Array.isArray(schema.enum)) values.push(...ENUM_EXTRAS, ...schema.enum);
  if (schema.format === 'date-time') values.push(...DATE_TIMES);
  else if (typeof schema.pattern === 'string') values.push(...PATTERN_STRINGS);
  if (schema.type === 'integer') values.push(...INTEGERS);
  if (schema.type === 'string' && typeof schema.minLength === 'number') values.push('', ' ');
  if (Array.isArray(schema.anyOf)) values.push([''], ['a'], ['a', ''], [1], ['a', ['b']], 'a');
  if (schema.type === 'array') values.push([null], [42], [sample(root, (schema.items ?? {}) as JsonSchema)]);
  return values;
}

function setAt(data: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (Array.isArray(data)) return data.map((item, i) => (i === head ? setAt(item, rest, value) : item));
  const record = data as Record<string, unknown>;
  return { ...record, [head as string]: setAt(record[head as string], rest, value) };
}

function deleteAt(data: unknown, path: Path): unknown {
  const parent = path.slice(0, -1);
  const key = path[path.length - 1] as string;
  const update = (node: unknown): unknown => {
    const { [key]: _removed, ...rest } = node as Record<string, unknown>;
    return rest;
  };
  const walk = (node: unknown, at: Path): unknown => {
    if (at.length === 0) return update(node);
    const [head, ...tail] = at;
    if (Array.isArray(node)) return node.map((item, i) => (i === head ? walk(item, tail) : item));
    const record = node as Record<string, unknown>;
    return { ...record, [head as string]: walk(record[head as string], tail) };
  };
  return walk(data, parent);
}

const pointer = (path: Path) => (path.length === 0 ? '(root)' : `/${path.join('/')}`);

export function* mutations(root: JsonSchema, data: unknown): Generator<Variant> {
  function* visit(value: unknown, raw: JsonSchema, path: Path): Generator<Variant> {
    const schema = resolve(root, raw);
    for (const replacement of replacementsFor(root, raw)) {
      yield { label: `set ${pointer(path)} = ${JSON.stringify(replacement)}`, data: setAt(data, path, replacement) };
    }
    if (Array.isArray(value)) {
      const items = (schema.items ?? {}) as JsonSchema;
      yield { label: `empty ${pointer(path)}`, data: setAt(data, path, []) };
      if (value.length > 0) yield { label: `append wrong item to ${pointer(path)}`, data: setAt(data, path, [...value, 42]) };
      for (let i = 0; i < value.length; i++) yield* visit(value[i], items, [...path, i]);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    const record = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    for (const key of (schema.required ?? []) as string[]) {
      if (key in record) yield { label: `delete ${pointer([...path, key])}`, data: deleteAt(data, [...path, key]) };
    }
    yield { label: `add unknown ${pointer([...path, 'extraField'])}`, data: setAt(data, [...path, 'extraField'], 'x') };
    for (const [key, propertySchema] of Object.entries(properties)) {
      if (key in record) continue;
      yield { label: `add ${pointer([...path, key])}`, data: setAt(data, [...path, key], sample(root, propertySchema)) };
      for (const replacement of replacementsFor(root, propertySchema)) {
        yield { label: `add ${pointer([...path, key])} = ${JSON.stringify(replacement)}`, data: setAt(data, [...path, key], replacement) };
      }
    }
    for (const [key, child] of Object.entries(record)) {
      const childSchema = properties[key] ?? (typeof schema.additionalProperties === 'object' ? (schema.additionalProperties as JsonSchema) : {});
      yield* visit(child, childSchema, [...path, key]);
    }
  }
  const seen = new Set<string>();
  for (const variant of visit(data, root, [])) {
    const key = JSON.stringify(variant.data);
    if (seen.has(key)) continue;
    seen.add(key);
    yield variant;
  }
}
