/**
 * Where a link written in a BMAD-METHOD file points, among the uploaded files: relative to the
 * file (`./step-02.md`, `../template.md`), relative to the workflow folder (`steps/step-02.md`
 * written in a step inside steps/), a workflow file's `./step-01.md` whose one step of that name
 * is in steps/, or installed-path style (`{project-root}/_bmad/bmm/workflows/
 * x/steps/step-01.md`), matched by its longest path suffix. `{variables}` defined in the file's
 * own frontmatter or in its workflow file's (`workflow_path: '{project-root}/_bmad/…/x'`,
 * `nextStepFile: '{workflow_path}/steps/step-02.md'`) are substituted first; `{installed_path}`
 * and `{workflow_path}` that nothing defines mean the workflow folder. Other `{variable}` paths
 * are outputs decided at run time and are not links.
 */
import { walkPath } from '../bmad/paths.ts';

export type Resolved = { kind: 'file'; path: string } | { kind: 'missing' } | { kind: 'outside' } | { kind: 'variable' };

export interface ResolveContext {
  files: ReadonlyMap<string, string>;
  /** Step files, preferred over other files of the same suffix. */
  steps: ReadonlySet<string>;
  /** Frontmatter variables (string values): the workflow file's, overridden by the linking file's own. */
  vars?: Readonly<Record<string, unknown>>;
  /** Folder of the workflow the link belongs to ('' = the upload's root, `x/` otherwise). */
  workflowDir?: string;
  /** Folders that hold a workflow file: an installed-path link must match into one of them. */
  workflowDirs?: readonly string[];
}

/** Variable names BMAD uses for the workflow's own folder. */
const FOLDER_VARIABLES = new Set(['installed_path', 'workflow_path', 'installedPath', 'workflowPath']);
/** `{name}`, not `{{name}}` (a template placeholder the model fills). */
const VARIABLE = /(?<!\{)\{([A-Za-z0-9_.-]+)\}(?!\})/gu;

/** `text` with every variable `vars` defines substituted, a few levels deep (a variable may use another). */
export function expandVariables(text: string, vars: Readonly<Record<string, unknown>>): string {
  let out = text;
  for (let depth = 0; depth < 8; depth++) {
    const next = out.replace(VARIABLE, (whole, name: string) => {
      const value = vars[name];
      return name !== 'project-root' && typeof value === 'string' && !value.includes(whole) ? value.trim() : whole;
    });
    if (next === out) break;
    out = next;
  }
  return out;
}

const segmentsOf = (path: string) => path.split('/').filter(Boolean);

/**
 * The uploaded file an installed path names: the one sharing the longest path suffix with it. A
 * match counts only when it covers the whole uploaded path, reaches up into the folder of a
 * workflow (`x/steps/step-01-init.md`), or is a folder and file of the linking workflow's own
 * (`steps/step-02.md`): a match by file name alone (`step-01-init.md` of another workflow, or of
 * one not uploaded) is no match.
 */
function suffixMatch(rest: string, ctx: ResolveContext): string | undefined {
  const wanted = segmentsOf(rest);
  let best: string | undefined;
  let bestScore = 0;
  for (const path of [...ctx.steps, ...ctx.files.keys()]) {
    const segments = segmentsOf(path);
    let score = 0;
    while (score < wanted.length && score < segments.length && wanted[wanted.length - 1 - score] === segments[segments.length - 1 - score]) score++;
    if (score === 0) continue;
    const inOwnFolder = ctx.workflowDir !== undefined && path.startsWith(ctx.workflowDir);
    const enough =
      score === segments.length ||
      (ctx.workflowDirs ?? []).some((dir) => dir !== '' && path.startsWith(dir) && score >= segments.length - segmentsOf(dir).length + 1) ||
      // The workflow's own `steps/step-02.md` under a folder zipped with another name.
      (score >= 2 && (inOwnFolder || ctx.workflowDirs === undefined));
    if (!enough) continue;
    if (score > bestScore || (score === bestScore && inOwnFolder && !best?.startsWith(ctx.workflowDir ?? ''))) {
      best = path;
      bestScore = score;
    }
  }
  return best;
}

export function resolveTarget(fromPath: string, target: string, ctx: ResolveContext): Resolved {
  let clean = expandVariables(target.trim().replace(/^['"]|['"]$/gu, ''), ctx.vars ?? {});
  const folderVariable = /^\{([A-Za-z_]+)\}/u.exec(clean)?.[1];
  if (folderVariable && FOLDER_VARIABLES.has(folderVariable) && ctx.workflowDir !== undefined) {
    // `{installed_path}/steps/step-02.md` with no definition: the workflow's own folder.
    const path = walkPath(segmentsOf(ctx.workflowDir), clean.slice(folderVariable.length + 2));
    if (path === null) return { kind: 'outside' };
    return ctx.files.has(path) ? { kind: 'file', path } : { kind: 'missing' };
  }
  if (clean.includes('{')) {
    if (!/^\{project-root\}/u.test(clean)) return { kind: 'variable' };
    clean = clean.slice(clean.indexOf('}') + 1);
    if (clean.includes('{')) return { kind: 'variable' };
    const found = suffixMatch(clean, ctx);
    return found ? { kind: 'file', path: found } : { kind: 'missing' };
  }
  if (clean.startsWith('/') || /^[A-Za-z]:/u.test(clean) || clean.includes('\\')) return { kind: 'outside' };
  const path = walkPath(fromPath.split('/').slice(0, -1), clean);
  if (path === null) return { kind: 'outside' };
  if (ctx.files.has(path)) return { kind: 'file', path };
  // `steps/step-02.md` written in steps/step-01.md means the workflow folder's steps/.
  if (ctx.workflowDir !== undefined && !clean.startsWith('..')) {
    const fromWorkflow = walkPath(segmentsOf(ctx.workflowDir), clean);
    if (fromWorkflow !== null && ctx.files.has(fromWorkflow)) return { kind: 'file', path: fromWorkflow };
  }
  // The workflow file naming its first step as a sibling (`./step-01-discovery.md`) while the step
  // lives in steps/: the one step file of this workflow with that name, when there is exactly one.
  const name = clean.replace(/^\.\//u, '');
  const inWorkflowDir = ctx.workflowDir !== undefined && fromPath.startsWith(ctx.workflowDir) && !fromPath.slice(ctx.workflowDir.length).includes('/');
  if (inWorkflowDir && !name.includes('/')) {
    const same = [...ctx.steps].filter((p) => p.startsWith(ctx.workflowDir!) && p.endsWith(`/${name}`));
    if (same.length === 1) return { kind: 'file', path: same[0]! };
  }
  // A bare name ("step-v-03-density.md" in prose) in a step means the sibling file, found above; elsewhere it is missing.
  return { kind: 'missing' };
}
