/**
 * Test support (Node only): loads the spec pack's example packages as file maps, the way the
 * importer hands a zip to packageFromFiles, and its JSON Schemas. Used by the spec suite and by
 * the unit tests in shared/bmad. Lives here, not in shared/, because shared/ must stay Node-free.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// /work/main/test/spec → /work/shared/spec (the spec pack sits beside the repository).
export const EXAMPLES_DIR = new URL('../../../shared/spec/bmad-v1.1/examples/', import.meta.url);
export const SCHEMAS_DIR = new URL('../../../shared/spec/bmad-v1.1/schemas/', import.meta.url);

export function loadExample(name: 'hello-branch' | 'expense-ops' | '_spec-templates'): Map<string, string> {
  return loadPackageDir(new URL(`${name}/`, EXAMPLES_DIR));
}

/** Any package folder as a file map (a README.md beside the package is not part of it). */
export function loadPackageDir(dir: URL): Map<string, string> {
  const root = fileURLToPath(dir);
  const files = new Map<string, string>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || (entry.name === 'README.md' && entry.parentPath.replace(/\/+$/u, '') === root.replace(/\/+$/u, ''))) continue;
    const full = `${entry.parentPath}/${entry.name}`;
    files.set(full.slice(root.length).replace(/^\/+/u, ''), readFileSync(full, 'utf8'));
  }
  return new Map([...files.entries()].sort(([a], [b]) => a.localeCompare(b)));
}

export function loadSchema(name: string): unknown {
  return JSON.parse(readFileSync(new URL(name, SCHEMAS_DIR), 'utf8')) as unknown;
}
