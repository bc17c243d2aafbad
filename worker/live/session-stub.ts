/**
 * A session's Durable Object as the Worker reaches it: through the AI_SESSION binding, typed by the
 * RPC contract in shared/ai/session-rpc.ts, never by the class (only worker/index.ts names it).
 */
import { getServerByName, type Server } from 'partyserver';
import type { AiSessionStub } from '../../shared/ai/session-rpc.ts';

export type AiSessionNamespace = DurableObjectNamespace;

/**
 * The stub of `sessionId`'s object. getServerByName awaits the object's onStart before any RPC; its
 * generic wants the class, so the binding is widened to a Server here and narrowed back to the
 * contract, which the class implements (drift breaks the build there).
 */
export async function sessionObject(namespace: AiSessionNamespace, sessionId: string): Promise<AiSessionStub> {
  const stub = await getServerByName(namespace as unknown as DurableObjectNamespace<Server>, sessionId);
  return stub as unknown as AiSessionStub;
}
