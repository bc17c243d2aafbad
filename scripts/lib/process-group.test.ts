// ProcessGroups: stopping a child also ends what the child started (wrangler → workerd), even a grandchild that ignores SIGTERM.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { ProcessGroups } from './process-group.ts';

/** A parent that starts a grandchild in its own group, prints the grandchild's pid, and waits. */
function parentScript(grandchildIgnoresTerm: boolean): string {
  const grandchild = `${grandchildIgnoresTerm ? "process.on('SIGTERM', () => {});" : ''} setInterval(() => {}, 1000);`;
  return `
    const { spawn } = require('node:child_process');
    const g = spawn(process.execPath, ['-e', ${JSON.stringify(grandchild)}], { stdio: 'ignore' });
    console.log(g.pid);
    setInterval(() => {}, 1000);
  `;
}

/** Alive and not a zombie (a killed orphan may wait for a reaper that never comes in a container). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

async function firstLine(stream: NodeJS.ReadableStream): Promise<string> {
  for await (const line of createInterface({ input: stream })) return line;
  throw new Error('the process printed nothing');
}

async function waitUntil(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 50));
}

let groups: ProcessGroups | undefined;
afterEach(() => {
  groups?.killNow();
  groups?.dispose();
});

describe('ProcessGroups', () => {
  it.each([
    ['ends on SIGTERM', false],
    ['ignores SIGTERM', true],
  ])('stop() ends the child and a grandchild that %s', async (_label, ignoresTerm) => {
    groups = new ProcessGroups();
    const parent = groups.spawn(process.execPath, ['-e', parentScript(ignoresTerm)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const grandchild = Number(await firstLine(parent.stdout!));
    expect(grandchild).toBeGreaterThan(0);
    expect(alive(grandchild)).toBe(true);

    await groups.stop(300);

    await waitUntil(() => parent.exitCode !== null || parent.signalCode !== null);
    await waitUntil(() => !alive(grandchild));
    expect(alive(parent.pid!)).toBe(false);
  });

  it('run() resolves on success and rejects with the exit code', async () => {
    groups = new ProcessGroups();
    await groups.run(process.execPath, ['-e', 'process.exit(0)']);
    await expect(groups.run(process.execPath, ['-e', 'process.exit(3)'])).rejects.toThrow(/exited with 3/);
  });
});
