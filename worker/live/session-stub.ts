/**
 * A session's Durable Object as the Worker reaches it: through the AI_SESSION binding, typed by the
 * RPC contract in shared/ai/session-rpc.ts, never by the class (only worker/index.ts names it).
 */
import type { AiSessionStub } from '../../shared/ai/session-rpc.ts';

export type AiSessionNamespace = DurableObjectNamespace;

/**
 * The stub of `sessionId`'s object, addressed by name: no routing RPC first (partyserver's
 * getServerByName sends `setName` before every call). The object knows its name from
 * `ctx.id.name` and sets itself up on first use from any entry point (its RPC methods call
 * onStart). Typed by the contract, which the class implements (drift breaks the build there).
 */
export async function sessionObject(namespace: AiSessionNamespace, sessionId: string): Promise<AiSessionStub> {
  return namespace.getByName(sessionId) as unknown as AiSessionStub;
}
