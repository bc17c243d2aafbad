/**
 * The repository's import rules (ARCHITECTURE.md "arrows one way"), checked on a file-level import
 * graph: `{ 'worker/routes/x.ts': ['shared/y.ts', …] }` with paths relative to the repository root.
 */

/** The Worker's edge: HTTP, routing, middleware, the env and the entry. Nothing below it may import it. */
export const WORKER_EDGE = ['worker/app.ts', 'worker/app-env.ts', 'worker/env.ts', 'worker/index.ts', 'worker/routes/', 'worker/http/', 'worker/middleware/'];

/** The Worker's server services: the session object may use them, and they never reach up into the edge. */
export const WORKER_SERVICES = ['worker/db/', 'worker/store/', 'worker/llm/', 'worker/package-io/', 'worker/auth/', 'worker/live/'];

/** The session object's class: only the composition root exports it (tests reach it through runInDurableObject). */
export const SESSION_CLASS = 'durable-objects/ai-session/ai-session.ts';
const SESSION_CLASS_IMPORTERS = ['worker/index.ts', 'test/'];

export interface ImportRule {
  name: string;
  from: string[];
  /** Imports of these are refused from `from` (unless the importer is in `except`). */
  refuse: string[];
  except?: string[];
}

export const IMPORT_RULES: ImportRule[] = [
  { name: 'shared/ is pure: it imports neither the Worker nor the session object', from: ['shared/'], refuse: ['worker/', 'durable-objects/'] },
  { name: "the session object never imports the Worker's edge", from: ['durable-objects/'], refuse: WORKER_EDGE },
  { name: "the Worker's server services never import its edge", from: WORKER_SERVICES, refuse: WORKER_EDGE },
  { name: 'the app reaches the server only over HTTP: it imports shared/, never worker/ or durable-objects/', from: ['app/'], refuse: ['worker/', 'durable-objects/'] },
  {
    name: 'only worker/index.ts names the session class; the Worker reaches it through its binding (shared/ai/session-rpc.ts)',
    from: [''],
    refuse: [SESSION_CLASS],
    except: [SESSION_CLASS, ...SESSION_CLASS_IMPORTERS],
  },
];

export interface Violation {
  rule: string;
  file: string;
  imports: string;
}

const under = (file: string, prefixes: string[]) => prefixes.some((p) => (p.endsWith('/') || p === '' ? file.startsWith(p) : file === p));

export function importViolations(graph: Record<string, string[]>, rules: ImportRule[] = IMPORT_RULES): Violation[] {
  const out: Violation[] = [];
  for (const [file, deps] of Object.entries(graph)) {
    for (const rule of rules) {
      if (!under(file, rule.from) || (rule.except && under(file, rule.except))) continue;
      for (const dep of deps) if (under(dep, rule.refuse)) out.push({ rule: rule.name, file, imports: dep });
    }
  }
  return out;
}
