/**
 * Applies the D1 migrations to the local database for `npm start`, in one line. wrangler's
 * `d1 migrations apply` prints its whole table of pending migrations again after each one it
 * applies (six tables for six migrations); its output is kept and only shown when it fails.
 */
import type { SpawnOptions } from 'node:child_process';
import { bin } from './run.ts';
import { offlineEnv } from './offline-env.ts';
import type { ProcessGroups } from './process-group.ts';

/** "applied 6 migrations: 0000_init.sql … 0005_x.sql", or that there was nothing to apply. */
export function migrationSummary(output: string): string {
  if (/No migrations to apply/i.test(output)) return 'the local database is up to date (no new migrations)';
  const names = [...new Set(output.match(/\b\d{4}_[\w.-]+\.sql\b/g) ?? [])];
  if (names.length === 0) return 'migrations applied';
  const listed = names.length > 3 ? `${names[0]} … ${names.at(-1)}` : names.join(', ');
  return `applied ${names.length} migration${names.length === 1 ? '' : 's'}: ${listed}`;
}

/** Runs `wrangler d1 migrations apply DB --local` quietly; resolves with the one-line summary. */
export async function applyLocalMigrations(groups: ProcessGroups, options: { cwd: string; persistTo?: string }): Promise<string> {
  const args = ['d1', 'migrations', 'apply', 'DB', '--local', ...(options.persistTo ? ['--persist-to', options.persistTo] : [])];
  const spawnOptions: SpawnOptions = { cwd: options.cwd, env: offlineEnv({ CI: 'true', NO_COLOR: '1' }) };
  const output = await groups.runCaptured(bin('wrangler'), args, spawnOptions);
  return migrationSummary(output);
}
