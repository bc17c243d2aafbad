// `npm start` refuses a busy port before starting anything: it names the port and the process
// holding it, exits non-zero and never prints that the product is running.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';

const START = new URL('./start.ts', import.meta.url).pathname;

function listen(port = 0): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

function portOf(server: Server): number {
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('the server has no port');
  return address.port;
}

/** A port nobody listens on (opened and closed again). */
async function freePort(): Promise<number> {
  const server = await listen();
  const port = portOf(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function npmStart(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [START], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const held: Server[] = [];
afterEach(async () => {
  await Promise.all(held.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('npm start with a busy port', () => {
  it.each([
    ['PORT', 'the Worker (PORT)'],
    ['SCRIPTED_MODEL_PORT', 'the scripted model server (SCRIPTED_MODEL_PORT)'],
  ])('stops before starting anything when %s is taken, and names the port and its holder', async (variable, purpose) => {
    const busy = await listen();
    held.push(busy);
    const port = portOf(busy);
    const env =
      variable === 'PORT'
        ? { PORT: String(port), SCRIPTED_MODEL_PORT: String(await freePort()) }
        : { PORT: String(await freePort()), SCRIPTED_MODEL_PORT: String(port) };

    const result = await npmStart(env);

    expect(result.code).not.toBe(0);
    expect(result.code).not.toBeNull();
    expect(result.stderr).toContain(`Port ${port}, for ${purpose}, is already in use`);
    // The holder is this test process, found through /proc (or lsof).
    expect(result.stderr).toContain(`pid ${process.pid} (`);
    expect(result.stderr).toContain(`kill ${process.pid}`);
    expect(result.stdout).not.toMatch(/is running|ready/i);
    // Nothing was started: no build, no migrations.
    expect(result.stdout).not.toContain('Building the web app');
  });
});
