/**
 * `npm run schemas`: writes the five published .bmad v1.1 JSON Schemas, generated from the zod
 * models (shared/bmad/json-schemas.ts), to schemas/bmad-v1.1/. Run it after changing
 * shared/bmad/models.ts and commit the result; a unit test fails while the files are stale.
 */
import { writeFileSync } from 'node:fs';
import { generateJsonSchemas, jsonSchemaText } from '../shared/bmad/json-schemas.ts';

const OUT_DIR = new URL('../schemas/bmad-v1.1/', import.meta.url);

for (const [file, schema] of Object.entries(generateJsonSchemas())) {
  writeFileSync(new URL(file, OUT_DIR), jsonSchemaText(schema));
  console.log(`wrote schemas/bmad-v1.1/${file}`);
}
