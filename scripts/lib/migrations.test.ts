// `npm start`'s migration step with the real wrangler on a fresh local D1: one summary line naming
// the migrations once (wrangler itself prints its table again after every migration), nothing to
// apply on the next start, and wrangler's own words when a migration fails.
import { mkdtemp, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyLocalMigrations } from './migrations.ts';
import { ProcessGroups } from './process-group.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
/** wrangler starts a local workerd for each run: a guard against a hang, not a speed requirement. */
const WRANGLER_RUNS = { timeout: 300_000 };
const made: string[] = [];
const groups = new ProcessGroups();
afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'crewagent-migrations-'));
  made.push(dir);
  return dir;
}

describe('applying the local migrations', () => {
  it('sums up the applied migrations in one line, each named at most once, and says so when there is nothing to apply', WRANGLER_RUNS, async () => {
    const persistTo = await tempDir();
    const names = (await readdir(join(ROOT, 'migrations'))).filter((name) => name.endsWith('.sql')).sort();
    const first = await applyLocalMigrations(groups, { cwd: ROOT, persistTo });
    expect(first).not.toContain('\n');
    expect(first).toContain(`applied ${names.length} migrations`);
    for (const name of [names[0]!, names.at(-1)!]) expect(first.split(name)).toHaveLength(2);
    expect(await applyLocalMigrations(groups, { cwd: ROOT, persistTo })).toBe('the local database is up to date (no new migrations)');
  });

  it('fails with wrangler\'s output when a migration cannot be applied', WRANGLER_RUNS, async () => {
    const project = await tempDir();
    await mkdir(join(project, 'migrations'));
    await writeFile(join(project, 'migrations', '0000_broken.sql'), 'CREATE TABL nonsense;\n');
    await writeFile(
      join(project, 'wrangler.toml'),
      'name = "migrations-test"\ncompatibility_date = "2025-01-01"\n\n[[d1_databases]]\nbinding = "DB"\ndatabase_name = "test"\ndatabase_id = "00000000-0000-0000-0000-000000000000"\nmigrations_dir = "migrations"\n',
    );
    const failure = await applyLocalMigrations(groups, { cwd: project, persistTo: join(project, 'state') }).then(
      () => null,
      (error: Error) => error.message,
    );
    expect(failure).toContain('exited with');
    expect(failure).toContain('0000_broken.sql');
    expect(failure).toMatch(/syntax error/i);
  });
});
