import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { PUBLISHED_SCHEMAS_DIR, readPublishedSchemaText } from '../../test/fixtures/packages.ts';
import { PUBLISHED_SCHEMAS, generateJsonSchema, generateJsonSchemas, jsonSchemaText } from './json-schemas.ts';
import type { PublishedSchemaFile } from './json-schemas.ts';

describe('published JSON Schemas', () => {
  it.each(Object.keys(PUBLISHED_SCHEMAS) as PublishedSchemaFile[])('schemas/bmad-v1.1/%s equals what the zod models generate (run npm run schemas)', (file) => {
    expect(readPublishedSchemaText(file)).toBe(jsonSchemaText(generateJsonSchema(file)));
  });

  it('the folder holds exactly the five generated schemas and the README', () => {
    expect(readdirSync(PUBLISHED_SCHEMAS_DIR).sort()).toEqual([...Object.keys(PUBLISHED_SCHEMAS), 'README.md'].sort());
  });

  it('writes the refinements as the JSON Schema keywords they stand for', () => {
    const schemas = generateJsonSchemas() as Record<PublishedSchemaFile, any>;
    expect(schemas['bmad.schema.json'].properties.createdAt).toEqual({ type: 'string', format: 'date-time' });
    expect(schemas['workflow-frontmatter.schema.json'].properties.decisionLog.items.properties.decidedAt).toEqual({ type: 'string', format: 'date-time' });
    const fs = schemas['agents.schema.json'].properties.agents.items.properties.tools.properties.fs.properties;
    expect(fs.maxReadBytes).toEqual({ type: 'integer', minimum: 1 });
    expect(schemas['bmad.schema.json'].$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    // Closed where the model is strict, open where it is loose.
    expect(schemas['workflow-graph.schema.json'].additionalProperties).toBe(false);
    expect(schemas['step-frontmatter.schema.json'].additionalProperties).toEqual({});
  });
});
