/** The Hono environment every route shares: bindings plus what middleware puts on the context. */
import type { Env } from './env.ts';
import type { Db } from './db/client.ts';
import type { UserView } from '../shared/api/auth.ts';
import type { Role } from '../shared/api/common.ts';
import type { ScopeAccess } from './auth/accounts.ts';
import type { PreloadedReads } from './auth/preload.ts';

export interface AppVariables {
  /** A D1 Sessions API session (middleware/d1-session.ts): reads may come from a replica as new as the client's bookmark. */
  db: Db;
  /** The primary, for who is asking (requireUser): a sign-out or role change applies to the very next request. */
  primaryDb: Db;
  /** Set by requireUser. */
  user: UserView;
  /** Set by requireUser: the hashed cookie token, for sign-out. */
  sessionTokenHash: string;
  /** Set by requireUser: when the cookie's login expires (ms since epoch). */
  loginExpiresAt: number;
  /** Set by requireUser: the URL's project role and session, read with the cookie (`readAt`: the time before that read). */
  access: ScopeAccess & { readAt: number };
  /** Set by requireUser for a project member when the route has preloads: take them with middleware/preloaded.ts. */
  preloaded?: PreloadedReads;
  /** Set by projectAccess: the project the route is about and the caller's role on it. */
  projectId: string;
  role: Role;
  /** Set by a route whose write went through another D1 session (the session object's apply): the bookmark to answer. */
  d1Bookmark?: string;
}

export interface AppEnv {
  Bindings: Env;
  Variables: AppVariables;
}
