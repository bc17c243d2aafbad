/**
 * A CPU profile of the product under `wrangler dev` through its inspector (the DevTools protocol),
 * and its reading: own and total time per function, per unit of work. Used by profile-turn.ts and
 * profile-comment.ts (neither is part of `npm run bench`).
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The DevTools protocol over one socket: `call(method, params)` → its result. */
export async function devtools(port: number) {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as Array<{ webSocketDebuggerUrl: string }>;
  if (!targets[0]) throw new Error('wrangler dev lists no inspector target');
  const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let next = 0;
  const waiting = new Map<number, (result: unknown) => void>();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
  });
  const call = <T>(method: string, params: object = {}) =>
    new Promise<T>((resolve) => {
      const id = ++next;
      waiting.set(id, resolve as (result: unknown) => void);
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { call, close: () => socket.close() };
}

/**
 * A sample's time: its delta, but at most twice the median delta. workerd's sampler pauses while the
 * isolate waits (I/O, the output gate); the first sample after a pause carries the whole pause as its
 * delta and would charge milliseconds to whatever JS ran first after it (a zod parse timed at 3 µs
 * showed as 500 µs). Capped, the times are CPU estimates; what the cap took off is printed.
 */
function sampleTimes(profile: Profile): { times: number[]; cut: number } {
  const sorted = [...profile.timeDeltas].sort((a, b) => a - b);
  const cap = 2 * (sorted[Math.floor(sorted.length / 2)] ?? 0);
  const times = profile.timeDeltas.map((us) => Math.min(us, cap));
  return { times, cut: profile.timeDeltas.reduce((sum, us) => sum + us, 0) - times.reduce((sum, us) => sum + us, 0) };
}

/** Self and total time per function (name and line), in ms per `unit` (a turn, a comment), the top `limit` of each. */
export function summarise(profile: Profile, units: number, limit = 30, unit = 'turn'): string {
  const { times, cut } = sampleTimes(profile);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const label = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${path.basename(n.callFrame.url) || ''}:${n.callFrame.lineNumber}`;
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const us = times[i] ?? 0;
    const node = byId.get(id)!;
    self.set(label(node), (self.get(label(node)) ?? 0) + us);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = label(byId.get(at)!);
      if (!seen.has(name)) total.set(name, (total.get(name) ?? 0) + us);
      seen.add(name);
    }
  });
  const top = (map: Map<string, number>) =>
    [...map].sort((a, b) => b[1] - a[1]).slice(0, limit).map(([name, us]) => `| ${(us / 1000 / units).toFixed(3)} | \`${name}\` |`);
  const pauses = `Pauses the sampler did not see (capped sample times): ${(cut / 1000 / units).toFixed(3)} ms per ${unit}, left out.`;
  return [`| ms per ${unit}, own | function |`, '|---:|---|', ...top(self), '', `| ms per ${unit}, in total | function |`, '|---:|---|', ...top(total), '', pauses].join('\n');
}

/**
 * The CPU profile of whatever the isolate behind `inspectorPort` does while `run` runs (sampled every
 * `intervalUs` µs), also written to a temp file named for `name` (open it in Chrome's DevTools).
 */
export async function profileWhile(inspectorPort: number, name: string, intervalUs: number, run: () => Promise<void>): Promise<{ profile: Profile; file: string }> {
  const inspector = await devtools(inspectorPort);
  try {
    await inspector.call('Profiler.enable');
    await inspector.call('Profiler.setSamplingInterval', { interval: intervalUs });
    await inspector.call('Profiler.start');
    await run();
    const { profile } = await inspector.call<{ profile: Profile }>('Profiler.stop');
    const file = path.join(tmpdir(), `crewagent-${name}-${Date.now()}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    return { profile, file };
  } finally {
    inspector.close();
  }
}
