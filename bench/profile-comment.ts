/**
 * Where a comment's time goes inside workerd (not part of `npm run bench`; alone:
 * `npm exec -- node bench/profile-comment.ts [comments]`): the fan-out rows' path — a `comment`
 * frame on a socket of the sender's, stored and sent as `comment.added` to a subscribed viewer —
 * with the product under `wrangler dev`, unminified, its CPU profiled through wrangler's inspector
 * (profile-turn.ts's reading: own and total time per function, capped sample deltas) while
 * `comments` comments (default 400) are sent one after another, each awaited at the viewer.
 */
import { BENCH_COMMENT_VARS, STEP_KEY, closeAll, importDemo, register, stepSession, subscribedSockets } from './session-clients.ts';
import type { Client } from './session-clients.ts';
import { profileWhile, summarise } from './cpu-profile.ts';
import { stageStep } from './session.ts';
import { startProduct } from '../test/browser/product.ts';

const WARMUP = 50;
const TIMEOUT_MS = 10_000;

async function main(comments: number): Promise<void> {
  const product = await startProduct({ minify: false, vars: { ...BENCH_COMMENT_VARS } });
  const clients = new Set<Client>();
  try {
    const owner = await register(product.url, 'profile-comment');
    const projectId = await importDemo(owner);
    const base = `/api/projects/${projectId}`;
    const sessionId = await stepSession(owner, base);
    await stageStep(owner, base, sessionId);
    const url = `${product.url.replace(/^http/, 'ws')}${base}/ai/sessions/${sessionId}/ws`;
    const [viewer] = await subscribedSockets(url, owner.headers(), 1, 'viewer', clients);
    const [sender] = await subscribedSockets(url, owner.headers(), 1, 'sender', clients);
    const comment = async (n: number) => {
      const mark = `profile-comment-${String(n).padStart(5, '0')}`;
      const seen = viewer!.waitText((text) => text.includes(mark), `the comment ${mark}`, TIMEOUT_MS);
      const ack = sender!.waitText((text) => text.includes(`"requestId":"c-${n}"`), `the answer to c-${n}`, TIMEOUT_MS);
      sender!.socket.send(JSON.stringify({ type: 'comment', requestId: `c-${n}`, comment: { objectKey: STEP_KEY, line: 1, body: mark } }));
      await Promise.all([seen, ack]);
    };
    for (let n = 0; n < WARMUP; n++) await comment(n);
    const { profile, file } = await profileWhile(product.inspectorPort, 'comment', 50, async () => {
      for (let n = WARMUP; n < WARMUP + comments; n++) await comment(n);
    });
    console.log(summarise(profile, comments, 40, 'comment'));
    console.log(`\n${comments} comments profiled; the profile: ${file}`);
  } finally {
    await closeAll([...clients]);
    await product.stop();
  }
}

await main(Number(process.argv[2] ?? 400));
