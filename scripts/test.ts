/**
 * `npm test`: every check, in order — type checks (tsc for Worker/DO/shared and Node code,
 * svelte-check for the app), the import graph (no cycle, arrows one way: scripts/check-boundaries.ts), the pure unit tests, the app's unit tests, the Workers-pool integration tests (real
 * D1, DO, WebSockets in workerd) and the browser tests (Debian Chromium via playwright-core
 * against the built SPA and `wrangler dev`). Ends with one line: `tests: N passed, N failed`.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, run } from './lib/run.ts';
import { offlineEnv } from './lib/offline-env.ts';

const root = new URL('..', import.meta.url).pathname;
const env = offlineEnv();
const reports = await mkdtemp(join(tmpdir(), 'bmad-test-'));

interface Suite {
  name: string;
  config: string;
}

const SUITES: Suite[] = [
  { name: 'unit', config: 'vitest.unit.config.ts' },
  { name: 'app', config: 'vitest.app.config.ts' },
  { name: 'workers', config: 'vitest.workers.config.ts' },
  { name: 'browser', config: 'vitest.browser.config.ts' },
];

interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}

async function vitest(suite: Suite): Promise<Tally & { ok: boolean }> {
  const outputFile = join(reports, `${suite.name}.json`);
  let ok = true;
  try {
    await run(bin('vitest'), ['run', '--config', suite.config, '--reporter=default', '--reporter=json', `--outputFile.json=${outputFile}`], {
      cwd: root,
      env,
    });
  } catch {
    ok = false;
  }
  try {
    const report = JSON.parse(await readFile(outputFile, 'utf8')) as {
      numPassedTests: number;
      numFailedTests: number;
      numPendingTests: number;
      numTodoTests: number;
    };
    return { ok, passed: report.numPassedTests, failed: report.numFailedTests, skipped: report.numPendingTests + report.numTodoTests };
  } catch {
    return { ok: false, passed: 0, failed: 1, skipped: 0 };
  }
}

async function step(name: string, command: string, args: string[]): Promise<boolean> {
  console.log(`\n▶ ${name}`);
  try {
    await run(command, args, { cwd: root, env });
    return true;
  } catch (error) {
    console.error(`✖ ${name}: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
}

const failures: string[] = [];
const checks: Array<[string, string, string[]]> = [
  ['svelte-kit sync', bin('svelte-kit'), ['sync']],
  ['type check: Worker, Durable Object, shared', bin('tsc'), ['-p', 'worker/tsconfig.json', '--noEmit']],
  ['type check: Node scripts and test support', bin('tsc'), ['-p', 'tsconfig.node.json', '--noEmit']],
  ['type check: app (svelte-check)', bin('svelte-check'), ['--tsconfig', './tsconfig.json', '--fail-on-warnings', '--output', 'human']],
  ['imports: no cycle, arrows one way (madge)', process.execPath, ['scripts/check-boundaries.ts']],
  ['build the web app', bin('vite'), ['build', '--logLevel', 'warn']],
];
for (const [name, command, args] of checks) {
  if (!(await step(name, command, args))) failures.push(name);
}
// A failed type check or build counts as a failed test in the closing line.
const failedChecks = failures.length;

const total: Tally = { passed: 0, failed: 0, skipped: 0 };
const lines: string[] = [];
for (const suite of SUITES) {
  console.log(`\n▶ ${suite.name} tests`);
  const result = await vitest(suite);
  total.passed += result.passed;
  total.failed += result.failed;
  total.skipped += result.skipped;
  if (!result.ok) failures.push(`${suite.name} tests`);
  lines.push(`  ${suite.name.padEnd(8)} ${result.passed} passed, ${result.failed} failed, ${result.skipped} skipped`);
}

console.log('\nSummary');
console.log(lines.join('\n'));
if (process.env.SKIP_BROWSER_TESTS === '1') {
  console.log('  note: SKIP_BROWSER_TESTS=1 was set, so the browser suite was skipped on purpose.');
}
for (const failure of failures) console.log(`  failed: ${failure}`);
console.log(`tests: ${total.passed} passed, ${total.failed + failedChecks} failed`);
process.exit(failures.length > 0 ? 1 : 0);
