/**
 * Setup module of the Workers pool (vitest.workers.config.ts `setupFiles`): records every console line
 * written while a test file runs, by the tests, the Worker and the session Durable Object alike.
 *
 * Why this works: under @cloudflare/vitest-plugin the Worker and its Durable Objects run in the same
 * isolate as the tests, so they call the same global `console` (test/workers/error-leaks.test.ts checks
 * that a line the session object logs through `logError` is seen here).
 *
 * Why not `vi.spyOn`: suites call `vi.restoreAllMocks()`, which would silently remove a spy installed
 * here and turn the log canary (log-canary.ts) into a check of nothing. The methods are wrapped once
 * per isolate instead; each wrapper still writes to the real console, so the output is unchanged.
 */
import { inspect } from 'node:util';
import { beforeAll } from 'vitest';

const METHODS = ['error', 'warn', 'log', 'info', 'debug', 'trace'] as const;

interface Recorder {
  lines: string[];
}

// On the global object, not in this module: the wrappers outlive a test file's module graph.
const KEY = Symbol.for('crewagent.test.consoleRecorder');
const holder = globalThis as typeof globalThis & { [KEY]?: Recorder };

/** One console call as a line: strings as written, anything else fully inspected (errors with their causes). */
export function formatLine(args: readonly unknown[]): string {
  return args.map((arg) => (typeof arg === 'string' ? arg : inspect(arg, { depth: 8, showHidden: true, breakLength: Infinity }))).join(' ');
}

function install(): Recorder {
  const existing = holder[KEY];
  if (existing) return existing;
  const recorder: Recorder = { lines: [] };
  for (const method of METHODS) {
    const original = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      recorder.lines.push(formatLine(args));
      original(...args);
    };
  }
  holder[KEY] = recorder;
  return recorder;
}

const recorder = install();

/** Forget what was recorded so far (a file's lines start with the file). */
export function resetRecord(): void {
  recorder.lines.length = 0;
}

// A file starts with an empty record; lines of the previous file in this isolate are not its own.
beforeAll(resetRecord);

/** Every line recorded since this test file started. */
export function recordedLines(): readonly string[] {
  return recorder.lines;
}

/** Where the record is now; `linesSince(mark)` returns what was logged after it. */
export function mark(): number {
  return recorder.lines.length;
}

export function linesSince(at: number): string[] {
  return recorder.lines.slice(at);
}
