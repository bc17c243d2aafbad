/**
 * Noticing that the process that launched this one is gone. `npm start` runs `sh -c "node
 * scripts/start.ts"`: a SIGTERM sent to npm alone (a supervisor, `kill <npm pid>`) ends npm and
 * its shell but never reaches the script, which would keep its wrangler and workerd running with
 * nobody left to stop them. So the script remembers its launchers (its parent, and that parent's
 * parent: npm behind the shell) and checks every second that each is still the same living
 * process; when one is gone, or the script was handed to another parent, it shuts down as on Ctrl+C.
 */
import { readFileSync } from 'node:fs';

/** How often the launchers are checked. */
export const LAUNCHER_CHECK_MS = 1_000;

/** A launcher as first seen: its pid, and what tells that same process apart from a later one with the pid (its start time). */
export interface Launcher {
  pid: number;
  stamp: string;
}

/**
 * The process `pid` as the system tells it: its start time and its parent, or null when it is gone
 * or a zombie (a killed process whose parent has not reaped it still answers `kill(pid, 0)`).
 * Without /proc (not Linux), only whether a signal could reach it, and no parent.
 */
export function processStamp(pid: number): { stamp: string; ppid: number | null } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name in parentheses: state, ppid, … and the start time as the 20th field.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || fields[0] === 'X') return null;
    return { stamp: fields[19] ?? '', ppid: Number(fields[1]) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || process.platform === 'linux') return null;
  }
  try {
    process.kill(pid, 0);
    return { stamp: 'alive', ppid: null };
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? { stamp: 'alive', ppid: null } : null;
  }
}

/** The parent `ppid` and its own parent, as they are now; pid 1 (init, or a container's) never counts as a launcher. */
export function launchersOf(ppid: number, stampOf: typeof processStamp = processStamp): Launcher[] {
  const launchers: Launcher[] = [];
  let pid: number | null = ppid;
  for (let depth = 0; depth < 2 && pid !== null && pid > 1; depth++) {
    const seen = stampOf(pid);
    if (!seen) break;
    launchers.push({ pid, stamp: seen.stamp });
    pid = seen.ppid;
  }
  return launchers;
}

/** True once this process was handed to another parent, or a launcher is no longer the process first seen. */
export function launcherGone(originalPpid: number, currentPpid: number, launchers: readonly Launcher[], stampOf: typeof processStamp = processStamp): boolean {
  if (currentPpid !== originalPpid) return true;
  return launchers.some((launcher) => stampOf(launcher.pid)?.stamp !== launcher.stamp);
}

/** Call `onGone` once, at the first check that finds a launcher gone. Returns the function that stops watching. */
export function watchLauncher(onGone: () => void, intervalMs = LAUNCHER_CHECK_MS): () => void {
  const originalPpid = process.ppid;
  const launchers = launchersOf(originalPpid);
  const timer = setInterval(() => {
    if (!launcherGone(originalPpid, process.ppid, launchers)) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  // The watch alone never keeps the process running.
  timer.unref();
  return () => clearInterval(timer);
}
