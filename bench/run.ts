/**
 * `npm run bench`: how fast package validation, import and export are, then the live channel's
 * fan-out and Yjs round trip on the real product (bench/session.ts), each measured beside a plain
 * reference doing the same job in the same run (bench/peers.ts, bench/session-peer.ts), printed
 * as ratios; then the rows against the floor Durable Objects in the same workerd (floor-rows.ts),
 * the D1 round trips (round-trips.ts) and the bundle sizes (scripts/bundle-sizes.ts). Exits non-zero only when something crashes or a generated package is not valid,
 * never on a ratio.
 */
import { cpus, loadavg } from 'node:os';
import { Bench } from 'tinybench';
import { generatePackage } from './generate.ts';
import type { GenerateOptions } from './generate.ts';
import { coeditRow } from './coedit.ts';
import { changeSetOf, checkChangeSet, fullDiff, textDiffOnly } from './diff.ts';
import { exportCpu, importCpu } from './ours.ts';
import { generateBmadMethodFolder } from './bmad-method.ts';
import { prepareImport } from '../worker/package-io/prepare-import.ts';
import { compileSchemas, rawUnzip, rawZip, schemaJobs, schemaOnlyValidate } from './peers.ts';
import { plainCheckedImport } from './import-peer.ts';
import { sessionBench, sessionReport } from './session.ts';
import type { SessionBenchResult } from './session.ts';
import { turnBench, turnReport } from './turn.ts';
import { floorBench, floorReport } from './floor-rows.ts';
import { roundTripBench, roundTripReport } from './round-trips.ts';
import { bundleReport, pageFirstLoads, workerBundle } from '../scripts/bundle-sizes.ts';
import { markdownTable, pairedRow } from './table.ts';
import type { ResultRow } from './table.ts';
import { packageFromFiles, packageToFiles, validatePackage } from '../shared/bmad/index.ts';

/** 500 steps in all: 5 workflows of 100 steps, 1 KiB step bodies. */
const VALIDATE_PACKAGE: GenerateOptions = { workflows: 5, stepsPerWorkflow: 100, stepBodyBytes: 1024 };
/** ~10 MB unpacked: 5 workflows of 500 steps with ~3.1 KB bodies, four 128 KiB assets (0.5 MiB of the 2 MiB allowed). */
const LARGE_PACKAGE: GenerateOptions = { workflows: 5, stepsPerWorkflow: 500, stepBodyBytes: 3100, assetBytes: 128 * 1024 };

/**
 * tinybench budgets for a whole row. The budget is split over ROUNDS rounds, and each round runs
 * ours and the peer back to back (first one, then the other, alternating), so a burst of load on a
 * shared 2-core machine lands on both sides of one round's ratio instead of on one side. Within a
 * round a task runs until both its time and its minimum runs are met; the first round warms up
 * first. The ms medians pool every round's samples (at least 15 per side); the ratio is the median
 * of the per-round ratios, the paired comparison. The whole run stays under ~2 minutes.
 */
const ROUNDS = 5;
const FAST = { time: 3_000, iterations: 30, warmupTime: 500, warmupIterations: 5 };
const SLOW = { time: 6_000, iterations: 15, warmupTime: 1_000, warmupIterations: 3 };

function fail(message: string): never {
  console.error(`bench: ${message}`);
  process.exit(1);
}

const utf8 = new TextEncoder();
const unpackedBytes = (files: ReadonlyMap<string, string>) => [...files.values()].reduce((n, t) => n + utf8.encode(t).byteLength, 0);
const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(2)} MB`;

/** A generated package, checked once: a bench of an invalid package measures the wrong thing. */
function validPackage(label: string, options: GenerateOptions): { files: Map<string, string>; warnings: number } {
  const files = generatePackage(options);
  const report = validatePackage(packageFromFiles(files));
  if (!report.valid) {
    const first = report.errors.slice(0, 5).map((i) => `\n  ${i.filePath}: ${i.code} ${i.message}`).join('');
    fail(`the generated ${label} package is not valid (${report.errors.length} errors):${first}`);
  }
  return { files, warnings: report.warnings.length };
}

// Results go here so no measured call is ever a dead store.
let sink: unknown;

interface Case {
  name: string;
  peer: string;
  ours: () => unknown;
  reference: () => unknown;
  budget: typeof FAST;
}


async function measure(c: Case): Promise<ResultRow> {
  const samples = { ours: [] as number[], peer: [] as number[] };
  const roundRatios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const bench = new Bench({
      time: c.budget.time / ROUNDS,
      iterations: Math.ceil(c.budget.iterations / ROUNDS),
      warmup: round === 0,
      warmupTime: c.budget.warmupTime,
      warmupIterations: c.budget.warmupIterations,
      retainSamples: true,
      throws: true,
    });
    const tasks = { ours: () => void (sink = c.ours()), peer: () => void (sink = c.reference()) };
    for (const name of round % 2 === 0 ? (['ours', 'peer'] as const) : (['peer', 'ours'] as const)) bench.add(name, tasks[name]);
    await bench.run();
    const roundMedian = { ours: 0, peer: 0 };
    for (const name of ['ours', 'peer'] as const) {
      const result = bench.getTask(name)!.result;
      if (result.state !== 'completed' || !result.latency.samples) fail(`${c.name} (${name}) did not complete: ${result.state}`);
      samples[name].push(...result.latency.samples);
      roundMedian[name] = result.latency.p50;
    }
    roundRatios.push(roundMedian.ours / roundMedian.peer);
  }
  return pairedRow(c.name, c.peer, samples, roundRatios);
}

// ---- setup (untimed) ------------------------------------------------------------------------

const started = performance.now();
const { files: small, warnings: smallWarnings } = validPackage('500-step', VALIDATE_PACKAGE);
const { files: large, warnings: largeWarnings } = validPackage('10 MB', LARGE_PACKAGE);
const validators = compileSchemas();
const smallJobs = schemaJobs(small);
for (const [label, files] of [['500-step', small], ['10 MB', large]] as const) {
  const rejected = schemaOnlyValidate(schemaJobs(files), validators);
  if (rejected.length > 0) fail(`ajv rejects ${rejected.length} file(s) of the generated ${label} package, e.g. ${rejected[0]}.`);
}
const smallPkg = packageFromFiles(small);
const largeZip = rawZip(large);
// What export starts from: the package as import stores it (multi-workflow layout, nodeIds set).
const storedLarge = importCpu(largeZip);
// The export peer zips the very file map export writes; make sure that is the generated one.
const exported = packageToFiles(storedLarge);
if (exported.size !== large.size || [...large].some(([path, text]) => exported.get(path) !== text)) {
  fail('packageToFiles does not give back the generated 10 MB package, so the export peer would zip different files.');
}
const smallZip = rawZip(small);
// The BMAD-METHOD row: a 200-step folder, and the .bmad package it derives to (the peer imports that).
const bmadFolderZip = rawZip(generateBmadMethodFolder(200));
const derivedOnce = prepareImport(bmadFolderZip);
if (!derivedOnce.preview.valid || derivedOnce.preview.workflows[0]?.steps.length !== 200) {
  fail(`The generated 200-step BMAD-METHOD folder does not derive to a valid 200-step workflow: ${derivedOnce.preview.errors[0]?.message ?? ''}`);
}
const derivedBmadZip = rawZip(packageToFiles(derivedOnce.pkg));
// The diff row: 100 changed files of the 500-step package, each with a semantic change to find.
const diffChanges = changeSetOf(small);
const diffProblem = checkChangeSet(diffChanges);
if (diffProblem) fail(`the diff row's change set has a file the semantic diff cannot read: ${diffProblem}`);

// Other work on the machine shows up as noise in the per-round ratios; the load says how much there was.
const load = () => loadavg()[0]!.toFixed(1);
console.log(`node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, load average ${load()} at the start`);
console.log('packages (generated by bench/generate.ts; validatePackage says valid):');
for (const [label, options, files, zip, warnings] of [
  ['500-step', VALIDATE_PACKAGE, small, smallZip, smallWarnings],
  ['10 MB', LARGE_PACKAGE, large, largeZip, largeWarnings],
] as const) {
  console.log(
    `  ${label.padEnd(8)} ${options.workflows} workflows × ${options.stepsPerWorkflow} steps, ${options.stepBodyBytes} B bodies: ` +
      `${files.size} files, ${mb(unpackedBytes(files))} unpacked, ${mb(zip.byteLength)} zipped (level 6), ${warnings} warnings`,
  );
}

// ---- the rows -------------------------------------------------------------------------------

const cases: Case[] = [
  {
    name: 'validate 500 steps / 5 workflows',
    peer: 'ajv 2020 + ajv-formats, published schemas compiled once: JSON.parse / yaml.parse each file, then its schema (no BMAD rules)',
    ours: () => validatePackage(smallPkg),
    reference: () => schemaOnlyValidate(smallJobs, validators),
    budget: FAST,
  },
  {
    name: 'import CPU, 10 MB package',
    peer: 'fflate unzipSync + strict TextDecoder of every entry (no guards, no parsing)',
    ours: () => importCpu(largeZip),
    reference: () => rawUnzip(largeZip),
    budget: SLOW,
  },
  {
    name: 'import CPU, 10 MB package, beside the same checks done plainly',
    peer: 'fflate unzipSync, sizes vs declared, CRC-32 of every entry, strict TextDecoder, then JSON.parse / yaml.parse + ajv of every file (no BMAD rules)',
    ours: () => importCpu(largeZip),
    reference: () => plainCheckedImport(largeZip, validators),
    budget: SLOW,
  },
  {
    name: 'import CPU, 200-step BMAD-METHOD folder',
    peer: 'our plain .bmad import (importCpu) of the package the folder derives to',
    ours: () => prepareImport(bmadFolderZip),
    reference: () => importCpu(derivedBmadZip),
    budget: FAST,
  },
  {
    name: 'export CPU, 10 MB package',
    peer: 'strToU8 + fflate zipSync level 6 of the same file map',
    ours: () => exportCpu(storedLarge),
    reference: () => rawZip(large),
    budget: SLOW,
  },
  {
    name: 'full diff, 100 changed files of the 500-step package',
    peer: 'jsdiff createTwoFilesPatch alone on the same 100 files (ours adds the semantic diffs: graph, agents, frontmatter, sections)',
    ours: () => fullDiff(diffChanges),
    reference: () => textDiffOnly(diffChanges),
    budget: FAST,
  },
];

const rows: ResultRow[] = [];
for (const c of cases) {
  console.error(`bench: ${c.name} …`);
  rows.push(await measure(c));
}
console.error('bench: co-edit keystroke, 2 MB draft …');
rows.push(coeditRow());
console.log('');
console.log(markdownTable(rows));
console.log('');
console.log(
  `ours / peer: how many times longer our code takes than the plain reference on the same input (1.00× = as fast); ` +
    `the median of ${ROUNDS} rounds that each ran both back to back, with the lowest–highest round beside it.`,
);
console.log('Import/export rows are CPU only: the D1 reads and writes (and asset hashing for their rows) are not part of this bench.');

// ---- the live channel: the real product under wrangler dev (bench/session.ts) ---------------

let live: SessionBenchResult;
try {
  live = await sessionBench();
} catch (error) {
  fail(`the session bench failed: ${error instanceof Error ? error.message : String(error)}`);
}
console.log('');
console.log(sessionReport(live));
console.log(`\n${turnReport(await turnBench().catch((error: unknown) => fail(`the turn bench failed: ${error instanceof Error ? error.message : String(error)}`)))}`);
console.log(`\n${floorReport(await floorBench().catch((error: unknown) => fail(`the floor bench failed: ${error instanceof Error ? error.message : String(error)}`)))}`);
console.log(`\n${roundTripReport(await roundTripBench().catch((error: unknown) => fail(`the round-trip bench failed: ${error instanceof Error ? error.message : String(error)}`)))}`);
// After the sections: startProduct has built the SPA by now, which the page sizes read.
console.log(`\n${bundleReport(await workerBundle(), await pageFirstLoads())}`);
console.log(`Whole run: ${((performance.now() - started) / 1000).toFixed(0)} s; load average ${load()} at the end.`);
if (sink === undefined) fail('no result was produced');
