/**
 * The frame of a bench section that drives the product (session.ts, turn.ts): Ctrl-C and SIGTERM
 * still stop wrangler, the section is bounded, a failure carries the product's recent output, and
 * everything the section started is closed whatever happens.
 */
import { closeAll, withTimeout } from './session-clients.ts';
import type { Client } from './session-clients.ts';
import type { PeerServer } from './session-peer.ts';
import type { Product } from '../test/browser/product.ts';

/** What a section has started, filled in as it goes, for the cleanup. */
export interface ProductResources {
  product?: Product;
  peers: PeerServer[];
  clients: Set<Client>;
}

/**
 * Runs `run` within `timeoutMs`, then closes every socket, every peer, what `closeMore` closes,
 * and the product (wrangler, workerd, the temp persist dir), in that order. Throws with a readable
 * message on failure: `name` ("the turn bench") names the section in the timeout.
 */
export async function runProductSection<T>(
  name: string,
  resources: ProductResources,
  timeoutMs: number,
  run: () => Promise<T>,
  closeMore: () => Promise<void> = async () => undefined,
): Promise<T> {
  // wrangler runs in its own process group; exiting through process.exit lets startProduct's
  // exit hook kill it on Ctrl-C too (a signal's default action skips 'exit' handlers).
  const interrupted = (signal: NodeJS.Signals) => {
    console.error(`bench: ${signal}, stopping the product`);
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    return await withTimeout(run(), timeoutMs, `${name} to finish`);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const full = resources.product?.output() ?? '';
    // wrangler dev rebuilds the Worker when a file it bundles changes, and a reload drops every socket.
    const reloaded = /Reloading local server/.test(full)
      ? '\nwrangler dev reloaded the Worker during the run (a source file it bundles changed), which closes every socket: run the bench again while no one edits the worker/, durable-objects/ or shared/ files.'
      : '';
    const output = full.split('\n').slice(-30).join('\n');
    throw new Error(`${message}${reloaded}${output ? `\nwrangler output (last lines):\n${output}` : ''}`, { cause: error });
  } finally {
    await closeAll(resources.clients);
    await Promise.all(resources.peers.map((p) => p.close().catch(() => undefined)));
    await closeMore();
    await resources.product?.stop();
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
  }
}
