/**
 * What a visitor and the edge download, gzipped: the Worker bundle as `wrangler deploy --dry-run`
 * builds it (offline), and each app page's first load from the SvelteKit build's Vite manifest
 * (the client entry, the root layout, the route's layout and page nodes, and everything they import
 * statically, JS and CSS; lazy `import()`s are not first load). `npm run bench` prints both; alone:
 * `npm exec -- node scripts/bundle-sizes.ts`.
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { offlineEnv } from './lib/offline-env.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLIENT = path.join(ROOT, '.svelte-kit/output/client');
const MANIFEST = path.join(CLIENT, '.vite/manifest.json');
const GENERATED = '.svelte-kit/generated/client-optimized';
const KIB = 1024;

/** The pages issue 19 sets goals for, by SvelteKit route id; `goalKiB` where it sets one. */
export const PAGES = [
  { name: 'login page', route: '/login' },
  { name: 'projects', route: '/projects' },
  { name: 'project page', route: '/projects/[projectId]' },
  { name: 'workflow editor', route: '/projects/[projectId]/workflows/[workflowId]', goalKiB: 150 },
  { name: 'Workbench', route: '/builder/[projectId]/ai-workbench', goalKiB: 150 },
] as const;
export const WORKER_GOAL_KIB = 400;

interface ManifestChunk {
  file: string;
  imports?: string[];
  css?: string[];
}

export interface Size {
  name: string;
  files: number;
  raw: number;
  gzip: number;
  goalKiB?: number;
  /** A page's first load: the files, as paths under the client build (for tests that read what a page carries). */
  paths?: string[];
  /** wrangler's own "Total Upload: … / gzip: …" line, for the Worker. */
  note?: string;
}

const gzipped = (bytes: Uint8Array) => gzipSync(bytes, { level: 9 }).byteLength;

async function run(command: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const child = spawn(command, args, { cwd: ROOT, env: offlineEnv({ ...env, CI: 'true', NO_COLOR: '1' }), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${code}):\n${output.slice(-3000)}`);
  return output;
}

/** The route → node indexes table SvelteKit generates (`dictionary` in app.js): [page, [layouts]]. */
async function routeNodes(): Promise<Map<string, number[]>> {
  const app = await readFile(path.join(ROOT, GENERATED, 'app.js'), 'utf8');
  const dictionary = /export const dictionary = (\{[\s\S]*?\n\t\});/.exec(app)?.[1];
  if (!dictionary) throw new Error(`No route dictionary in ${GENERATED}/app.js; is this a SvelteKit client build?`);
  const routes = new Map<string, number[]>();
  for (const [, route, page, layouts] of dictionary.matchAll(/"([^"]+)":\s*\[(-?\d+)(?:,\s*\[([\d,\s]*)\])?/g)) {
    const nodes = [Math.abs(Number(page)), ...(layouts ?? '').split(',').filter((n) => n.trim() !== '').map(Number)];
    routes.set(route!, nodes);
  }
  return routes;
}

/** What the client build is made from: a file here newer than the build means the build is stale. */
const APP_SOURCES = ['app', 'shared', 'svelte.config.js', 'vite.config.ts', 'package-lock.json'];

async function newestSourceMs(): Promise<number> {
  let newest = 0;
  for (const source of APP_SOURCES) {
    const at = path.join(ROOT, source);
    if (!existsSync(at)) continue;
    const files = statSync(at).isDirectory() ? (await readdir(at, { recursive: true })).map((f) => path.join(at, f)) : [at];
    for (const file of files) newest = Math.max(newest, statSync(file).mtimeMs);
  }
  return newest;
}

/** Each page's first load from the client build (built with `vite build` first if it is missing or older than its sources). */
export async function pageFirstLoads(): Promise<Size[]> {
  if (!existsSync(MANIFEST) || statSync(MANIFEST).mtimeMs < (await newestSourceMs())) await run('npx', ['vite', 'build'], { NODE_ENV: 'production' });
  const manifest = JSON.parse(await readFile(MANIFEST, 'utf8')) as Record<string, ManifestChunk>;
  const routes = await routeNodes();
  const entryKeys = Object.keys(manifest).filter((key) => key.endsWith('/client/entry.js') || key === `${GENERATED}/app.js`);
  const sizes: Size[] = [];
  for (const page of PAGES) {
    const nodes = routes.get(page.route);
    if (!nodes) throw new Error(`The build has no route ${page.route}.`);
    const files = new Set<string>();
    const visit = (key: string) => {
      const chunk = manifest[key];
      if (!chunk || files.has(chunk.file)) return;
      files.add(chunk.file);
      for (const css of chunk.css ?? []) files.add(css);
      for (const imported of chunk.imports ?? []) visit(imported);
    };
    // Node 0 is the root layout every page loads.
    for (const key of [...entryKeys, ...[0, ...nodes].map((n) => `${GENERATED}/nodes/${n}.js`)]) visit(key);
    let raw = 0;
    let gzip = 0;
    for (const file of files) {
      const bytes = await readFile(path.join(CLIENT, file));
      raw += bytes.byteLength;
      gzip += gzipped(bytes);
    }
    sizes.push({ name: page.name, files: files.size, raw, gzip, paths: [...files].map((file) => path.join(CLIENT, file)), ...('goalKiB' in page ? { goalKiB: page.goalKiB } : {}) });
  }
  return sizes;
}

/** The Worker as deploy would upload it: `wrangler deploy --dry-run --outdir`, every module gzipped. */
export async function workerBundle(): Promise<Size> {
  const outdir = await mkdtemp(path.join(tmpdir(), 'crewagent-worker-bundle-'));
  try {
    const output = await run('npx', ['wrangler', 'deploy', '--dry-run', '--outdir', outdir]);
    const note = /Total Upload:[^\n]*/.exec(output)?.[0];
    const files = (await readdir(outdir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile() && !e.name.endsWith('.map') && e.name !== 'README.md');
    let raw = 0;
    let gzip = 0;
    for (const entry of files) {
      const bytes = await readFile(path.join(entry.parentPath, entry.name));
      raw += bytes.byteLength;
      gzip += gzipped(bytes);
    }
    return { name: 'Worker bundle', files: files.length, raw, gzip, goalKiB: WORKER_GOAL_KIB, ...(note ? { note } : {}) };
  } finally {
    await rm(outdir, { recursive: true, force: true });
  }
}

const kib = (bytes: number) => `${(bytes / KIB).toFixed(1)} KiB`;

export function bundleReport(worker: Size, pages: readonly Size[]): string {
  const row = (s: Size) =>
    `| ${s.name} | ${s.files} | ${kib(s.raw)} | ${kib(s.gzip)} | ${s.goalKiB === undefined ? '–' : `≤ ${s.goalKiB} KiB ${s.gzip <= s.goalKiB * KIB ? 'met' : 'not met'}`} |`;
  return [
    '| bundle (gzip level 9, each file alone) | files | raw | gzipped | goal |',
    '|---|---:|---:|---:|---|',
    row(worker),
    ...pages.map((p) => row({ ...p, name: `first load: ${p.name}` })),
    '',
    `Worker: every module \`wrangler deploy --dry-run --outdir\` writes (source maps aside)${worker.note ? `; wrangler itself says "${worker.note}"` : ''}. A page: the client entry (start + app), ` +
      "the root layout, the route's layout and page nodes and their static imports, JS and CSS (not index.html, not lazy imports).",
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(bundleReport(await workerBundle(), await pageFirstLoads()));
}
