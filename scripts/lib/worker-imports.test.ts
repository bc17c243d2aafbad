// Imports that would put dead weight back into the Worker bundle (issue 19: ≤ 400 KiB gzipped), checked in
// every server source file: the bundler cannot shake them, so a single one undoes the saving.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;
const SERVER_FOLDERS = ['worker', 'durable-objects', 'shared'];

function serverSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return serverSources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [relative(root, path)] : [];
  });
}

const files = SERVER_FOLDERS.flatMap((folder) => serverSources(join(root, folder)));

function offenders(pattern: RegExp): string[] {
  return files.filter((file) => pattern.test(readFileSync(join(root, file), 'utf8')));
}

describe('server imports that bloat the Worker bundle', () => {
  it('reads at least the known server files', () => {
    expect(files).toContain('worker/llm/provider.ts');
    expect(files).toContain('shared/api/projects.ts');
  });

  it("imports zod as a namespace: `import { z }` is a value the bundler keeps whole, every locale included (~80 KiB gzipped)", () => {
    expect(offenders(/^import\s+\{\s*z\s*\}\s+from\s+'zod'/m)).toEqual([]);
  });

  it("never imports the openai package's index: its client class loads every resource of the API (~150 KiB gzipped)", () => {
    expect(offenders(/^import\s+(?!type\b)[^;]*?from\s+'openai'/m)).toEqual([]);
  });
});
