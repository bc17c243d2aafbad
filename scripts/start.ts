/**
 * `npm start`: the whole product on this machine with its embedded defaults — local D1 with
 * the real migrations, the demo account and project, the scripted model server (no internet),
 * the built SPA, and `wrangler dev`. Prints the URL and the demo login.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { bin, waitFor } from './lib/run.ts';
import { offlineEnv } from './lib/offline-env.ts';
import { applyLocalMigrations } from './lib/migrations.ts';
import { assertPortsFree } from './lib/ports.ts';
import { ProcessGroups } from './lib/process-group.ts';
import { watchLauncher } from './lib/launcher-watch.ts';
import { DEMO_USER, DEMO_VIEWER, seedDemo } from './seed-demo.ts';

const root = new URL('..', import.meta.url).pathname;
const port = Number(process.env.PORT ?? 8787);
const modelPort = Number(process.env.SCRIPTED_MODEL_PORT ?? port + 1);
const url = `http://127.0.0.1:${port}`;
// Every child leads its own process group, stopped whole when npm start ends (wrangler's workerd too).
const groups = new ProcessGroups();

/** Local secrets for wrangler dev (.dev.vars, git-ignored): generated once, kept after. */
async function ensureDevVars(): Promise<void> {
  const path = `${root}.dev.vars`;
  const current = existsSync(path) ? await readFile(path, 'utf8') : '';
  const lines = [current.trimEnd()].filter(Boolean);
  if (!/^LLM_KEY_ENCRYPTION_KEY=/m.test(current)) {
    lines.push(`LLM_KEY_ENCRYPTION_KEY=${randomBytes(32).toString('base64')}`);
  }
  // Self-hosted and local models must work (the scripted demo model runs on loopback).
  if (!/^LLM_ALLOW_PRIVATE_BASE_URLS=/m.test(current)) lines.push('LLM_ALLOW_PRIVATE_BASE_URLS=true');
  // The system default model is the scripted demo, so a new account's first AI turn needs no
  // settings. Rewritten on every start (the port may change) unless someone set another model.
  // Its key is no secret: like OpenAI, the scripted server refuses requests without one.
  if (!/^LLM_SYSTEM_DEFAULT_MODEL=(?!scripted-demo$)/m.test(current)) {
    const kept = lines.flatMap((block) => block.split('\n')).filter((line) => !/^LLM_SYSTEM_DEFAULT_(BASE_URL|MODEL|API_KEY)=/.test(line));
    const demo = [`LLM_SYSTEM_DEFAULT_BASE_URL=http://127.0.0.1:${modelPort}/v1`, 'LLM_SYSTEM_DEFAULT_MODEL=scripted-demo', 'LLM_SYSTEM_DEFAULT_API_KEY=sk-local-demo-key'];
    lines.splice(0, lines.length, ...kept, ...demo);
  }
  await writeFile(path, `${lines.join('\n')}\n`, { mode: 0o600 });
}

function start(name: string, command: string, args: string[]): ChildProcess {
  const child = groups.spawn(command, args, { cwd: root, env: offlineEnv() });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${name} stopped (${signal ?? code}); shutting down.`);
      void stop(1);
    }
  });
  return child;
}

let stopping = false;
async function stop(code = 0): Promise<void> {
  if (stopping) return;
  stopping = true;
  await groups.stop();
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
process.on('SIGHUP', () => void stop(0));
// A SIGTERM to npm alone ends npm and its `sh -c` but never reaches this script: noticed here instead.
watchLauncher(() => {
  console.error('The process that started npm start is gone; shutting down.');
  void stop(0);
});

async function main(): Promise<void> {
  const t0 = Date.now();
  // A port already taken (often a workerd left by an earlier run) would answer our health check.
  await assertPortsFree([
    { port, purpose: 'the Worker (PORT)' },
    { port: modelPort, purpose: 'the scripted model server (SCRIPTED_MODEL_PORT)' },
  ]);
  await ensureDevVars();
  console.log('• Building the web app…');
  await groups.run(bin('vite'), ['build', '--logLevel', 'warn'], { cwd: root, env: offlineEnv() });
  console.log('• Applying migrations to the local D1 database…');
  console.log(`  ${await applyLocalMigrations(groups, { cwd: root })}`);

  console.log(`• Starting the scripted model server on port ${modelPort}…`);
  const model = start('scripted model', process.execPath, [`${root}test/support/scripted-openai/cli.ts`, '--port', String(modelPort)]);
  await waitFor(`http://127.0.0.1:${modelPort}/v1/models`, 20_000, () => model.exitCode === null);

  console.log(`• Starting the Worker on port ${port}…`);
  const worker = start('wrangler dev', bin('wrangler'), [
    'dev',
    '--local',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--show-interactive-dev-session=false',
    '--log-level',
    'warn',
  ]);
  await waitFor(`${url}/api/health`, 90_000, () => worker.exitCode === null);

  console.log('• Seeding the demo account and project…');
  const seeded = await seedDemo(url, { scriptedModelUrl: `http://127.0.0.1:${modelPort}/v1` });

  console.log(`
  CrewAgent Builder AI Workbench is running (ready in ${((Date.now() - t0) / 1000).toFixed(1)} s)

    Open:      ${url}
    Sign in:   ${DEMO_USER.email}  /  ${DEMO_USER.password}
    Viewer:    ${DEMO_VIEWER.email}  /  ${DEMO_VIEWER.password}
    Project:   ${url}/projects/${seeded.projectId}${seeded.created ? '' : ' (kept from an earlier start)'}
    中文示例:  ${url}/projects/${seeded.zhProjectId}
    AI model:  "Scripted demo model" at http://127.0.0.1:${modelPort}/v1 (offline)

  Press Ctrl+C to stop.
`);
}

main().catch((error: unknown) => {
  if (stopping) return;
  console.error(`npm start failed: ${error instanceof Error ? error.message : String(error)}`);
  void stop(1);
});
