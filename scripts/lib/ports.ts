/**
 * Is a TCP port free on 127.0.0.1, and if not, which process listens on it. `npm start` checks
 * its ports first: a leftover workerd from a killed run would otherwise answer the health check
 * and the new start would print "ready" against it.
 */
import { execFile } from 'node:child_process';
import { readdir, readFile, readlink } from 'node:fs/promises';
import { createServer } from 'node:net';

/** Tries to listen on the port: the only check that agrees with what wrangler will meet. */
export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES') resolve(false);
      else reject(error);
    });
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** Socket inodes listening on `port`, from /proc/net/tcp and tcp6 (Linux). */
async function listeningInodes(port: number): Promise<Set<string>> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/);
      const [, local, , state, , , , , , inode] = fields;
      if (local?.endsWith(`:${hexPort}`) && state === '0A' && inode && inode !== '0') inodes.add(inode);
    }
  }
  return inodes;
}

export interface PortHolder {
  pid: number;
  command: string;
}

/** The pid and command line of the processes holding one of the socket inodes (Linux /proc). */
async function processesWithSockets(inodes: Set<string>): Promise<PortHolder[]> {
  const found: PortHolder[] = [];
  const wanted = new Set([...inodes].map((inode) => `socket:[${inode}]`));
  for (const pid of (await readdir('/proc').catch(() => [])).filter((name) => /^\d+$/.test(name))) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
    for (const fd of fds) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      if (!wanted.has(target)) continue;
      const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0').filter(Boolean).join(' ');
      found.push({ pid: Number(pid), command: cmdline });
      break;
    }
  }
  return found;
}

/** `lsof` where /proc has no answer (macOS; or a process of another user). */
function lsofHolders(port: number): Promise<PortHolder[]> {
  return new Promise((resolve) => {
    execFile('lsof', ['-nP', `-iTCP:${port}`, '-sTCP:LISTEN', '-Fpc'], (error, stdout) => {
      if (error) return resolve([]);
      const holders: PortHolder[] = [];
      let pid = '';
      for (const line of stdout.split('\n')) {
        if (line.startsWith('p')) pid = line.slice(1);
        if (line.startsWith('c') && pid) holders.push({ pid: Number(pid), command: line.slice(1) });
      }
      resolve(holders);
    });
  });
}

/** The processes listening on `port`; empty when no tool here can tell (another user's process). */
export async function portHolders(port: number): Promise<PortHolder[]> {
  const inodes = await listeningInodes(port);
  const holders = inodes.size > 0 ? await processesWithSockets(inodes) : [];
  return holders.length > 0 ? holders : lsofHolders(port);
}

function describeHolder({ pid, command }: PortHolder): string {
  const shown = command.length > 120 ? `${command.slice(0, 117)}...` : command || 'unknown command';
  return `pid ${pid} (${shown})`;
}

export interface NamedPort {
  port: number;
  /** What npm start wants it for, e.g. "the Worker (PORT)". */
  purpose: string;
}

/** Throws a plain message naming each busy port, what holds it and how to get past it. */
export async function assertPortsFree(ports: NamedPort[]): Promise<void> {
  const problems: string[] = [];
  for (const { port, purpose } of ports) {
    if (await isPortFree(port)) continue;
    const holders = await portHolders(port);
    problems.push(
      `Port ${port}, for ${purpose}, is already in use${holders.length > 0 ? ` by ${holders.map(describeHolder).join(', ')}` : ''}.` +
        (holders.length > 0
          ? ` If it is left from an earlier npm start, stop it (kill ${holders.map((h) => h.pid).join(' ')});`
          : ' Stop what listens on it;') +
        ' or pick other ports, e.g. PORT=8790 npm start.',
    );
  }
  if (problems.length > 0) throw new Error(problems.join('\n'));
}
