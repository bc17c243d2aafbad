/**
 * Each folder of the session object says what it holds: a README.md that names every module in it,
 * and names no module that is not there; the top README names every subfolder.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('.', import.meta.url).pathname;
const subfolders = readdirSync(ROOT).filter((name) => statSync(join(ROOT, name)).isDirectory() && !name.startsWith('__'));

/** Names in backticks without a slash, e.g. `turn-store.ts`: files of this folder (paths elsewhere are skipped). */
function namedModules(readme: string): string[] {
  return [...readme.matchAll(/`([A-Za-z0-9_.-]+\.ts)`/g)].map((m) => m[1]!);
}

function modulesIn(folder: string): string[] {
  return readdirSync(folder).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && statSync(join(folder, name)).isFile());
}

describe('the session folders and their READMEs', () => {
  it('has the folders the architecture names', () => {
    expect(subfolders).toEqual(expect.arrayContaining(['overlay', 'events', 'sockets', 'review', 'apply', 'loop', 'prompt', 'tools']));
  });

  for (const folder of ['.', ...subfolders]) {
    it(`${folder}/README.md names exactly the modules of ${folder}/`, () => {
      const dir = join(ROOT, folder);
      const readme = readFileSync(join(dir, 'README.md'), 'utf8');
      const named = new Set(namedModules(readme));
      const present = readdirSync(dir);
      expect(modulesIn(dir).filter((m) => !named.has(m))).toEqual([]);
      expect([...named].filter((m) => !present.includes(m))).toEqual([]);
    });
  }

  it('the top README names every subfolder', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(subfolders.filter((f) => !readme.includes(`\`${f}/\``))).toEqual([]);
  });
});
