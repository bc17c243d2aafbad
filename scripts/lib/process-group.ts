/**
 * Child processes that end with their parent. Each child leads its own process group (detached),
 * and stopping signals the whole group: wrangler starts workerd as a grandchild, and signalling
 * wrangler alone left workerd holding the port after a killed `npm start`.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

const STOP_GRACE_MS = 5_000;

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Signals the group led by `pid`; false when the group has no process left. */
function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

export class ProcessGroups {
  readonly #children = new Set<ChildProcess>();
  readonly #killOnExit = () => this.killNow();

  constructor() {
    // The last resort (an uncaught error, process.exit elsewhere): no graceful wait is possible
    // in 'exit', so the groups get SIGKILL.
    process.on('exit', this.#killOnExit);
  }

  /**
   * Starts `command` as the leader of a new process group. stdin is never the terminal: a
   * background group reading it would be stopped (SIGTTIN), and Ctrl+C reaches only this process,
   * which then stops the groups.
   */
  spawn(command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
    const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options, detached: true });
    this.#children.add(child);
    return child;
  }

  /** Runs a command in its own group to completion; rejects with its exit code or signal. */
  run(command: string, args: string[], options: SpawnOptions = {}): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = this.spawn(command, args, options);
      child.once('error', reject);
      child.once('exit', (code, signal) => {
        this.#children.delete(child);
        // The leader is gone; anything it left behind in its group goes too.
        if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
        if (code === 0) resolve();
        else reject(new Error(`${command} ${args.join(' ')} exited with ${signal ?? code}`));
      });
    });
  }

  /**
   * Like run, but the command's output (stdout and stderr, interleaved) is kept instead of shown:
   * resolves with it, or rejects with it in the error for the reader to see what went wrong.
   */
  async runCaptured(command: string, args: string[], options: SpawnOptions = {}): Promise<string> {
    let output = '';
    const finished = new Promise<void>((resolve, reject) => {
      const child = this.spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('error', reject);
      child.once('close', (code, signal) => {
        this.#children.delete(child);
        if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
        if (code === 0) resolve();
        else reject(new Error(`${command} ${args.join(' ')} exited with ${signal ?? code}:\n${output.trimEnd()}`));
      });
    });
    await finished;
    return output;
  }

  /** SIGTERM to every group, then SIGKILL to what is still there after the grace period. */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    const children = [...this.#children];
    const exits = children.map((child) =>
      exited(child) ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve())),
    );
    for (const child of children) if (child.pid !== undefined) signalGroup(child.pid, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([Promise.all(exits), grace]);
    clearTimeout(timer);
    // Grandchildren may outlive their leader (or ignore SIGTERM): the group goes either way.
    this.killNow();
    await Promise.race([Promise.all(exits), new Promise<void>((resolve) => setTimeout(resolve, graceMs))]);
    this.#children.clear();
  }

  /** SIGKILL to every group, synchronously (safe inside a process 'exit' handler). */
  killNow(): void {
    for (const child of this.#children) if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
  }

  /** Stops listening for this process's exit (for tests that make many groups). */
  dispose(): void {
    process.off('exit', this.#killOnExit);
  }
}
