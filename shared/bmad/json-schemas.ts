/**
 * The five .bmad v1.1 JSON Schemas (draft 2020-12) the product publishes, generated from its zod
 * models with z.toJSONSchema, so outside tools check the same contract the product enforces.
 * `npm run schemas` writes them to schemas/bmad-v1.1/; a unit test keeps the checked-in files equal.
 */
import * as z from 'zod';
import type { $ZodType } from 'zod/v4/core';
import { AgentsFile, BmadManifest, StepFrontmatter, WorkflowFrontmatter, WorkflowGraph } from './models.ts';

export type JsonSchemaDocument = Record<string, unknown>;

/** Schema file name → the zod model it is generated from and a one-line title. */
export const PUBLISHED_SCHEMAS = {
  'bmad.schema.json': { model: BmadManifest, title: '.bmad v1.1 manifest (bmad.json)' },
  'workflow-frontmatter.schema.json': { model: WorkflowFrontmatter, title: '.bmad v1.1 workflow.md frontmatter' },
  'step-frontmatter.schema.json': { model: StepFrontmatter, title: '.bmad v1.1 step file frontmatter' },
  'workflow-graph.schema.json': { model: WorkflowGraph, title: '.bmad v1.1 workflow graph (workflow.graph.json)' },
  'agents.schema.json': { model: AgentsFile, title: '.bmad v1.1 agents (agents.json)' },
} as const;

export type PublishedSchemaFile = keyof typeof PUBLISHED_SCHEMAS;

interface CustomCheck {
  _zod: { def: { check: string; params?: { format?: string; minimum?: number } } };
}

/**
 * The models express three JSON Schema keywords as refinements (zod's own checks differ from the
 * JSON Schema meaning, e.g. `z.int()` rejects 1e20): each refinement names its keyword in its
 * params, and this writes that keyword. A refinement without a known keyword has no JSON Schema
 * form, so generation fails instead of publishing a schema weaker than the product.
 */
function writeRefinements(ctx: { zodSchema: $ZodType; jsonSchema: Record<string, unknown> }): void {
  const checks = ((ctx.zodSchema._zod.def as { checks?: CustomCheck[] }).checks ?? []).filter((c) => c._zod.def.check === 'custom');
  for (const check of checks) {
    const params = check._zod.def.params ?? {};
    if (params.format === 'date-time') ctx.jsonSchema.format = 'date-time';
    else if (params.format === 'integer') ctx.jsonSchema.type = 'integer';
    else if (params.format === 'minimum' && typeof params.minimum === 'number') ctx.jsonSchema.minimum = params.minimum;
    else throw new Error(`A refinement in the .bmad models has no JSON Schema keyword (params: ${JSON.stringify(params)}).`);
  }
}

/** One published schema, generated from its zod model. */
export function generateJsonSchema(file: PublishedSchemaFile): JsonSchemaDocument {
  const { model, title } = PUBLISHED_SCHEMAS[file];
  const generated = z.toJSONSchema(model, { target: 'draft-2020-12', unrepresentable: 'throw', override: writeRefinements });
  const { $schema, ...rest } = generated as JsonSchemaDocument;
  return { $schema, title, ...rest };
}

/** All five published schemas by file name, in a fixed order. */
export function generateJsonSchemas(): Record<PublishedSchemaFile, JsonSchemaDocument> {
  return Object.fromEntries(
    (Object.keys(PUBLISHED_SCHEMAS) as PublishedSchemaFile[]).map((file) => [file, generateJsonSchema(file)]),
  ) as Record<PublishedSchemaFile, JsonSchemaDocument>;
}

/** The text a schema file holds: two-space JSON and a final newline. */
export function jsonSchemaText(schema: JsonSchemaDocument): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
