/**
 * `node scripts/check-boundaries.ts`: the file-level import graph (madge) has no cycle and keeps the
 * import rules of scripts/lib/import-rules.ts. Only `.ts` files are parsed: madge cannot read
 * `.svelte` components, so imports made inside them are not seen (svelte-check covers their types).
 */
import madge from 'madge';
import { importViolations } from './lib/import-rules.ts';

const root = new URL('..', import.meta.url).pathname;
const FOLDERS = ['worker', 'durable-objects', 'shared', 'app', 'scripts', 'test', 'bench'];

const result = await madge(
  FOLDERS.map((f) => root + f),
  { baseDir: root, fileExtensions: ['ts'], tsConfig: root + 'worker/tsconfig.json', excludeRegExp: [/node_modules/, /\.svelte-kit/] },
);
const graph = result.obj();
const cycles = result.circular();
const violations = importViolations(graph);

console.log(`import graph: ${Object.keys(graph).length} files`);
for (const cycle of cycles) console.error(`✖ import cycle: ${cycle.join(' → ')} → ${cycle[0]}`);
for (const v of violations) console.error(`✖ ${v.file} imports ${v.imports}: ${v.rule}`);
if (cycles.length === 0 && violations.length === 0) console.log('✔ no import cycle, every import rule kept');
process.exit(cycles.length + violations.length > 0 ? 1 : 0);
