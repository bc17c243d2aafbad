/** The bindings and variables the Worker receives (wrangler.toml, secrets in .dev.vars). */
import type { AiSessionNamespace } from './live/session-stub.ts';
import type { LlmVars } from './llm/llm-vars.ts';
import type { D1InstrumentationVars } from './db/instrumented-d1.ts';

export interface Env extends LlmVars, D1InstrumentationVars {
  DB: D1Database;
  /** The session objects; reached through live/session-stub.ts, typed by their RPC contract (only index.ts names the class). */
  AI_SESSION: AiSessionNamespace;
  ASSETS: Fetcher;
  /** Days an ended AI session keeps its object's storage before it is archived to D1 and released (default 30). */
  AI_SESSION_RETENTION_DAYS?: string;
  /** Comments one person may send per minute in a session (default 30): durable-objects/ai-session/review/comment-rate.ts. */
  AI_COMMENTS_PER_MINUTE?: string;
  /** Sockets one person may open on one session (default 8): durable-objects/ai-session/sockets/admission.ts. */
  AI_SOCKETS_PER_PERSON?: string;
}
