/**
 * The round-trip rows of `npm run bench` (issue 19): how many sequential D1 round trips each hot
 * path makes, and the hot paths with 20 ms injected per D1 call. Both need the Worker's counting,
 * latency-injecting D1 wrapper, switched on by the env vars below; until that wrapper is in the tree
 * the rows print "n/a" with their goals, so the table is in place for whoever wires it: start the
 * product with `ROUND_TRIP_VARS` (or `latencyVars()`), drive each path, read the counts with
 * `readRoundTripCounts`.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../test/browser/product.ts';

/** The wrapper this file expects (another change adds it to worker/db/). */
export const WRAPPER = 'worker/db/instrumented-d1.ts';
export const ROUND_TRIP_VARS = { D1_COUNT_ROUND_TRIPS: '1' } as const;
export const INJECTED_LATENCY_MS = 20;
export const latencyVars = (ms = INJECTED_LATENCY_MS) => ({ D1_INJECT_LATENCY_MS: String(ms) });

/** The hot paths and their goals (sequential D1 round trips), as issue 19 lists them. */
export const HOT_PATHS = [
  { path: 'session request (cookie → user, role, session row)', goal: 1 },
  { path: 'tool iteration (nothing changed)', goal: 0 },
  { path: 'event', goal: 0 },
  { path: 'create a session', goal: 2 },
  { path: 'stage', goal: 2 },
  { path: 'validate', goal: 2 },
  { path: 'apply', goal: 2 },
  { path: 'Builder save (a step)', goal: 2 },
] as const;

/** With INJECTED_LATENCY_MS per D1 call. */
export const UNDER_DISTANCE = [
  { row: 'message POST → 202', goal: '≤ 30 ms' },
  { row: 'fan-out of one event to 100 sockets', goal: '≤ 10 ms' },
  { row: 'a scripted 3-iteration turn', goal: '≤ 2× its time without injected latency' },
] as const;

export const wrapperPresent = () => existsSync(path.join(ROOT, WRAPPER));

/**
 * The counts per hot path, or null while the wrapper is not in this tree. Wiring it: start the
 * product with ROUND_TRIP_VARS, drive each path once warm, and read the wrapper's counter here.
 */
export async function readRoundTripCounts(): Promise<Map<string, number> | null> {
  if (!wrapperPresent()) return null;
  // The wrapper is present but its read-out is not wired into the bench yet.
  return null;
}

const NA = 'n/a (counting wrapper not in this tree)';

export async function roundTripReport(): Promise<string> {
  const counts = await readRoundTripCounts();
  const missing = counts === null ? (wrapperPresent() ? 'n/a (wrapper present, read-out not wired)' : NA) : '';
  return [
    '| hot path | sequential D1 round trips | goal |',
    '|---|---:|---:|',
    ...HOT_PATHS.map((p) => `| ${p.path} | ${counts?.get(p.path) ?? missing} | ${p.goal} |`),
    '',
    `| with ${INJECTED_LATENCY_MS} ms injected per D1 call | ours | goal |`,
    '|---|---:|---|',
    ...UNDER_DISTANCE.map((r) => `| ${r.row} | ${counts === null ? missing : 'n/a (not wired)'} | ${r.goal} |`),
  ].join('\n');
}
