// `npm start` notices that the process that launched it is gone (launcher-watch.ts): the decision on
// its own, then real processes laid out as npm lays them out (a launcher, its `sh -c`, the script)
// with only the launcher sent SIGTERM.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { launcherGone, launchersOf, processStamp, type Launcher } from './launcher-watch.ts';

const WATCH = new URL('./launcher-watch.ts', import.meta.url).pathname;

/** A process table to ask: pid → its stamp and parent (absent: gone). */
function table(rows: Record<number, { stamp: string; ppid: number | null }>) {
  return (pid: number) => rows[pid] ?? null;
}

describe('launcherGone', () => {
  const launchers: Launcher[] = [
    { pid: 200, stamp: 's200' },
    { pid: 100, stamp: 's100' },
  ];

  it('is false while the parent is the same and every launcher is the process first seen', () => {
    const now = table({ 200: { stamp: 's200', ppid: 100 }, 100: { stamp: 's100', ppid: 1 } });
    expect(launcherGone(200, 200, launchers, now)).toBe(false);
  });

  it('is true once the process was handed to another parent (its shell ended: npm’s case)', () => {
    const now = table({ 100: { stamp: 's100', ppid: 1 } });
    expect(launcherGone(200, 1, launchers, now)).toBe(true);
  });

  it('is true when the launcher behind the shell ended while the shell still waits', () => {
    const now = table({ 200: { stamp: 's200', ppid: 100 } });
    expect(launcherGone(200, 200, launchers, now)).toBe(true);
  });

  it('is true when a launcher’s pid now belongs to another process (reused)', () => {
    const now = table({ 200: { stamp: 's200', ppid: 100 }, 100: { stamp: 'someone else', ppid: 1 } });
    expect(launcherGone(200, 200, launchers, now)).toBe(true);
  });
});

describe('launchersOf', () => {
  it('takes the parent and its parent, never pid 1', () => {
    expect(launchersOf(200, table({ 200: { stamp: 'a', ppid: 100 }, 100: { stamp: 'b', ppid: 1 } }))).toEqual([
      { pid: 200, stamp: 'a' },
      { pid: 100, stamp: 'b' },
    ]);
    expect(launchersOf(200, table({ 200: { stamp: 'a', ppid: 1 } }))).toEqual([{ pid: 200, stamp: 'a' }]);
    expect(launchersOf(1)).toEqual([]);
  });

  it('reads this process’s own parent from the system as alive', () => {
    expect(processStamp(process.ppid)).toMatchObject({ stamp: expect.any(String) });
    expect(launchersOf(process.ppid).length).toBeGreaterThan(0);
  });
});

describe('a script launched through `sh -c`', () => {
  it('stops by itself when only its launcher is sent SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'launcher-watch-'));
    const out = join(dir, 'out');
    // The script: watches its launchers every 50 ms, says so in a file and ends when one is gone.
    const script = `import { writeFileSync } from 'node:fs'; import { watchLauncher } from ${JSON.stringify(WATCH)};
      writeFileSync(${JSON.stringify(out)}, 'watching');
      watchLauncher(() => { writeFileSync(${JSON.stringify(out)}, 'launcher gone'); process.exit(0); }, 50);
      setInterval(() => {}, 1000);`;
    const shell = `${JSON.stringify(process.execPath)} --input-type=module -e ${shellQuote(script)}; true`;
    // The launcher (npm's part): runs the shell, which runs the script and waits for it (`; true` keeps the shell from exec-ing into it), as npm's does.
    const launcherCode = `const { spawn } = require('node:child_process');
      const sh = spawn('sh', ['-c', ${JSON.stringify(shell)}], { stdio: 'ignore' });
      console.log(sh.pid);
      setInterval(() => {}, 1000);`;
    const launcher = spawn(process.execPath, ['-e', launcherCode], { stdio: ['ignore', 'pipe', 'inherit'] });
    const shellPid = Number(await new Promise<string>((resolve) => launcher.stdout.once('data', (chunk) => resolve(String(chunk).trim()))));
    await until(() => read(out) === 'watching');
    const scriptPid = childOf(shellPid);
    expect(scriptPid).not.toBeNull();

    try {
      launcher.kill('SIGTERM');
      await until(() => read(out) === 'launcher gone');
      await until(() => processStamp(scriptPid!) === null);
    } finally {
      // A failed run leaves nothing behind.
      if (processStamp(scriptPid!) !== null) process.kill(scriptPid!, 'SIGKILL');
    }
  });
});

function read(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** The first child of `pid` in the process table (Linux /proc). */
function childOf(pid: number): number | null {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    return children.length > 0 ? Number(children[0]) : null;
  } catch {
    return null;
  }
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 25));
}
