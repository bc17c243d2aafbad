/**
 * The plain references each bench row is compared with: the same bytes through the bare tool and
 * nothing else. Schema-only validation with ajv (JSON Schema 2020-12 + ajv-formats, the JSON Schemas
 * the product publishes in schemas/bmad-v1.1/, the options the spec suite uses), raw fflate unzip + UTF-8 decode, raw fflate zip.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { parse as parseYaml } from 'yaml';

// Generated from the zod models by `npm run schemas` (shared/bmad/json-schemas.ts): the contract the product enforces.
const SCHEMAS_DIR = new URL('../schemas/bmad-v1.1/', import.meta.url);

const SCHEMA_FILES = {
  manifest: 'bmad.schema.json',
  agents: 'agents.schema.json',
  graph: 'workflow-graph.schema.json',
  workflow: 'workflow-frontmatter.schema.json',
  step: 'step-frontmatter.schema.json',
} as const;

type FileKind = keyof typeof SCHEMA_FILES;

/** One file for the schema-only peer: which schema judges it, and its text. */
export interface SchemaJob {
  kind: FileKind;
  path: string;
  text: string;
}

/** Compiles the five schemas once (outside any timing). */
export function compileSchemas(): Record<FileKind, ValidateFunction> {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats(ajv);
  const compiled = {} as Record<FileKind, ValidateFunction>;
  for (const [kind, file] of Object.entries(SCHEMA_FILES) as Array<[FileKind, string]>) {
    compiled[kind] = ajv.compile(JSON.parse(readFileSync(new URL(file, SCHEMAS_DIR), 'utf8')) as object);
  }
  return compiled;
}

/** Which schema judges each package file; assets have none. Done once, outside the timing. */
export function schemaJobs(files: ReadonlyMap<string, string>): SchemaJob[] {
  const jobs: SchemaJob[] = [];
  for (const [path, text] of files) {
    const kind: FileKind | undefined =
      path === 'bmad.json' ? 'manifest'
      : path === 'agents.json' ? 'agents'
      : path.endsWith('/workflow.graph.json') ? 'graph'
      : path.endsWith('/workflow.md') ? 'workflow'
      : /\/steps\/[^/]+\.md$/u.test(path) ? 'step'
      : undefined;
    if (kind) jobs.push({ kind, path, text });
  }
  return jobs;
}

/** The YAML between the `---` fences at the top of a Markdown file (no BOM/CRLF handling, no guards). */
function frontmatterYaml(text: string): string {
  const end = text.indexOf('\n---\n', 3);
  return text.startsWith('---\n') && end !== -1 ? text.slice(4, end + 1) : '';
}

/** Parses every file (JSON.parse, or yaml.parse of the frontmatter) and runs its compiled schema. Returns the paths that fail. */
export function schemaOnlyValidate(jobs: readonly SchemaJob[], validators: Record<FileKind, ValidateFunction>): string[] {
  const failed: string[] = [];
  for (const job of jobs) {
    const data: unknown = job.kind === 'workflow' || job.kind === 'step' ? parseYaml(frontmatterYaml(job.text)) : JSON.parse(job.text);
    if (!validators[job.kind](data)) failed.push(job.path);
  }
  return failed;
}

/** fflate's unzip of every entry and a strict UTF-8 decode of each: no name, size or ratio checks. */
export function rawUnzip(zip: Uint8Array): Map<string, string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const files = new Map<string, string>();
  for (const [path, bytes] of Object.entries(unzipSync(zip))) files.set(path, decoder.decode(bytes));
  return files;
}

/** UTF-8 encode each file and zip the lot at level 6 (export's level). */
export function rawZip(files: ReadonlyMap<string, string>): Uint8Array {
  const entries: Record<string, Uint8Array> = {};
  for (const [path, text] of files) entries[path] = strToU8(text);
  return zipSync(entries, { level: 6 });
}
