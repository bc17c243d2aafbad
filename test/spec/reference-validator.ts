/**
 * The reference verdict: ajv (JSON Schema draft 2020-12) with ajv-formats, loaded with the five
 * JSON Schemas the product publishes (schemas/bmad-v1.1/, generated from the zod models).
 * Node-only, test-only; the product never runs ajv.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { loadPublishedSchema } from '../fixtures/packages.ts';

export type FileKind = 'manifest' | 'agents' | 'graph' | 'workflow' | 'step';

export const SCHEMA_FILES: Record<FileKind, string> = {
  manifest: 'bmad.schema.json',
  agents: 'agents.schema.json',
  graph: 'workflow-graph.schema.json',
  workflow: 'workflow-frontmatter.schema.json',
  step: 'step-frontmatter.schema.json',
};

export type JsonSchema = Record<string, unknown>;

export const SCHEMAS = Object.fromEntries(
  Object.entries(SCHEMA_FILES).map(([kind, file]) => [kind, loadPublishedSchema(file) as JsonSchema]),
) as Record<FileKind, JsonSchema>;

const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv);
const validators = Object.fromEntries(
  Object.entries(SCHEMAS).map(([kind, schema]) => [kind, ajv.compile(schema)]),
) as Record<FileKind, ValidateFunction>;

/** Whether `data` is valid against the published schema, and ajv's errors when not. */
export function referenceVerdict(kind: FileKind, data: unknown): { valid: boolean; errors: string[] } {
  const validate = validators[kind];
  const valid = validate(data);
  return { valid, errors: (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`) };
}
