/**
 * Starts the whole product locally, the way it runs in production: the built SPA (./build) and
 * the Worker under `wrangler dev --local`, on a fresh D1 with the real migrations applied. Used
 * by the browser tests (harness.ts); `scripts/start.ts` may borrow from it.
 *
 *   const product = await startProduct();   // { url, stop() }
 *   ...
 *   await product.stop();
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { offlineEnv } from '../../scripts/lib/offline-env.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** wrangler's first start compiles the Worker and boots workerd; 60 s is generous on a slow box. */
const HEALTH_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;
/** Lines of wrangler's output kept for error messages. */
const OUTPUT_LINES = 200;

export interface StartProductOptions {
  /** Where D1 and Durable Object state live; a new temp dir (removed on stop) by default. */
  persistDir?: string;
  /** Port for the Worker; a free one by default. */
  port?: number;
  /** Rebuild the SPA even if build/index.html exists. */
  rebuild?: boolean;
  /** Echo wrangler's output to this process's stderr. */
  verbose?: boolean;
  /**
   * The bench's floor Worker config (bench/floor/wrangler.jsonc): started first in the same
   * `wrangler dev` (one workerd), it owns the port and hands every other path to the product.
   */
  floorConfig?: string;
  /** More `--var`s for the Worker (the bench's D1 round-trip counter and injected latency). */
  vars?: Record<string, string>;
  /** false: bundle without minifying (readable names in a CPU profile: bench/profile-turn.ts). */
  minify?: boolean;
}

export interface Product {
  /** e.g. `http://127.0.0.1:41234` (no trailing slash). */
  url: string;
  persistDir: string;
  /** Stops wrangler and everything it started; removes the temp persist dir if we made it. */
  stop(): Promise<void>;
  /** wrangler's recent output, for failure messages. */
  output(): string;
  /** The DevTools port of wrangler's inspector proxy (a CPU profile of the Worker and its objects). */
  inspectorPort: number;
}

/** Tools run from the repository with its pinned Node (node_modules/.bin/node comes first). */
function toolEnv(): NodeJS.ProcessEnv {
  return offlineEnv({
    PATH: `${path.join(ROOT, 'node_modules/.bin')}${path.delimiter}${process.env.PATH ?? ''}`,
    CI: 'true',
    NO_COLOR: '1',
  });
}

class OutputTail {
  #lines: string[] = [];
  #partial = '';

  push(chunk: Buffer | string): void {
    // wrangler colours its output even with NO_COLOR; error messages read better without escapes.
    const text = this.#partial + chunk.toString().replace(/\x1b\[[0-9;]*m/g, '');
    const lines = text.split(/\r?\n/);
    this.#partial = lines.pop() ?? '';
    this.#lines.push(...lines);
    if (this.#lines.length > OUTPUT_LINES) this.#lines.splice(0, this.#lines.length - OUTPUT_LINES);
  }

  toString(): string {
    return [...this.#lines, this.#partial].filter((l) => l !== '').join('\n');
  }
}

/** Runs a command to completion; rejects with its output when it fails. */
async function run(command: string, args: string[], label: string, verbose = false, env: Record<string, string> = {}): Promise<void> {
  const tail = new OutputTail();
  const child = spawn(command, args, { cwd: ROOT, env: { ...toolEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const collect = (chunk: Buffer) => {
    tail.push(chunk);
    if (verbose) process.stderr.write(chunk);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (exitCode) => resolve(exitCode));
  });
  if (code !== 0) {
    throw new Error(`${label} failed (exit code ${code}): ${command} ${args.join(' ')}\n${tail.toString()}`);
  }
}

/** Asks the OS for a free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('Could not find a free port.'))));
    });
  });
}

/** Builds the SPA into ./build unless it is there already. */
export async function ensureSpaBuilt(options: { rebuild?: boolean; verbose?: boolean } = {}): Promise<void> {
  if (!options.rebuild && existsSync(path.join(ROOT, 'build/index.html'))) return;
  // vitest sets NODE_ENV=test, which vite would inherit and build the SPA with its development
  // code (SvelteKit's dev-only console warnings among it); the product is built for production.
  await run('npx', ['vite', 'build'], 'Building the SPA (vite build)', options.verbose, { NODE_ENV: 'production' });
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Signals the whole process group (wrangler → workerd, esbuild); the child leads its group. */
function signalTree(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || exited(child)) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (exited(child)) return;
  const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  signalTree(child, 'SIGTERM');
  const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), STOP_GRACE_MS));
  if ((await Promise.race([done, timer])) === 'timeout') {
    signalTree(child, 'SIGKILL');
    await done;
  }
}

async function waitForHealth(url: string, child: ChildProcess, tail: OutputTail): Promise<void> {
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  let lastProblem = 'no answer yet';
  while (Date.now() < deadline) {
    if (exited(child)) {
      throw new Error(`wrangler dev exited (code ${child.exitCode ?? child.signalCode}) before ${url}/api/health answered.\n${tail}`);
    }
    // In dev mode wrangler waits for a fix after a failed Worker build; a test run should not.
    if (/Build failed/i.test(tail.toString())) {
      throw new Error(`wrangler dev could not build the Worker.\n${tail}`);
    }
    try {
      const response = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(2_000) });
      if (response.status === 200) return;
      lastProblem = `status ${response.status}`;
    } catch (error) {
      lastProblem = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(
    `The Worker did not answer GET ${url}/api/health with 200 within ${HEALTH_TIMEOUT_MS / 1000} s (last: ${lastProblem}).\nwrangler output:\n${tail}`,
  );
}

/**
 * wrangler dev gives `--var` to the first config only, so beside the floor the product runs from a
 * copy of wrangler.toml (in the temp persist dir, absolute paths) with the same vars written in.
 */
async function secondaryProductConfig(dir: string, vars: Record<string, string>): Promise<string> {
  const { experimental_readRawConfig } = await import('wrangler');
  const { rawConfig } = experimental_readRawConfig({ config: path.join(ROOT, 'wrangler.toml') });
  const config = {
    ...rawConfig,
    main: path.join(ROOT, rawConfig.main ?? 'worker/index.ts'),
    assets: rawConfig.assets ? { ...rawConfig.assets, directory: path.join(ROOT, rawConfig.assets.directory ?? 'build') } : undefined,
    vars: { ...rawConfig.vars, ...vars },
  };
  const file = path.join(dir, 'product.wrangler.json');
  await writeFile(file, JSON.stringify(config, null, 2));
  return file;
}

export async function startProduct(options: StartProductOptions = {}): Promise<Product> {
  for (const required of ['wrangler.toml', 'migrations']) {
    if (!existsSync(path.join(ROOT, required))) {
      throw new Error(`Cannot start the product: ${required} is missing in ${ROOT}.`);
    }
  }

  await ensureSpaBuilt({ rebuild: options.rebuild, verbose: options.verbose });

  const ownsPersistDir = options.persistDir === undefined;
  const persistDir = options.persistDir ?? (await mkdtemp(path.join(tmpdir(), 'crewagent-product-')));

  try {
    await run(
      'npx',
      ['wrangler', 'd1', 'migrations', 'apply', 'DB', '--local', '--persist-to', persistDir],
      'Applying the D1 migrations',
      options.verbose,
    );
  } catch (error) {
    if (ownsPersistDir) await rm(persistDir, { recursive: true, force: true });
    throw error;
  }

  const vars = {
    // Not from wrangler.toml or the git-ignored .dev.vars (CI has none): tests point LLM profiles
    // at the scripted model server on loopback, and saving a key needs a key-encryption key
    // (worker/llm/crypto.ts); a fresh one per run. `--var` wins over both files.
    LLM_ALLOW_PRIVATE_BASE_URLS: 'true',
    LLM_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    // No system default model, whatever a local `npm start` wrote into .dev.vars (it points at the
    // demo model there): the tests that want one set it themselves, as in vitest.workers.config.ts.
    LLM_SYSTEM_DEFAULT_BASE_URL: '',
    LLM_SYSTEM_DEFAULT_MODEL: '',
    LLM_SYSTEM_DEFAULT_API_KEY: '',
    ...options.vars,
  };
  const configs = options.floorConfig ? ['-c', options.floorConfig, '-c', await secondaryProductConfig(persistDir, vars)] : [];
  const port = options.port ?? (await freePort());
  // A fixed inspector port would collide with any other wrangler dev on the machine.
  const inspectorPort = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const tail = new OutputTail();
  const child = spawn(
    'npx',
    [
      'wrangler',
      'dev',
      ...configs,
      '--local',
      '--port',
      String(port),
      '--inspector-port',
      String(inspectorPort),
      '--persist-to',
      persistDir,
      '--ip',
      '127.0.0.1',
      '--show-interactive-dev-session=false',
      ...(options.minify === false ? ['--minify=false'] : []),
      ...Object.entries(vars).flatMap(([name, value]) => ['--var', `${name}:${value}`]),
    ],
    { cwd: ROOT, env: toolEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  const collect = (chunk: Buffer) => {
    tail.push(chunk);
    if (options.verbose) process.stderr.write(chunk);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  child.on('error', (error) => tail.push(`spawn error: ${error.message}\n`));

  // If the test process dies without calling stop(), take wrangler and workerd with it.
  const killOnExit = () => signalTree(child, 'SIGKILL');
  process.once('exit', killOnExit);

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', killOnExit);
    await stopChild(child);
    if (ownsPersistDir) await rm(persistDir, { recursive: true, force: true });
  };

  try {
    await waitForHealth(url, child, tail);
  } catch (error) {
    await stop();
    throw error;
  }

  return { url, persistDir, stop, output: () => tail.toString(), inspectorPort };
}
