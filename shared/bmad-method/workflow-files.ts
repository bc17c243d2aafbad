/**
 * The workflows of a BMAD-METHOD upload: each `workflow.md` / `workflow-*.md` with a frontmatter
 * `name`, and each legacy `workflow.yaml` (older BMAD: `name`, `description`, `instructions:
 * '{installed_path}/instructions.md'`) whose instructions file is in the upload, unless a
 * workflow.md sits beside it. A workflow.md whose frontmatter is not valid YAML is still a
 * workflow: its name comes from its `name:` line (else its folder), its frontmatter lines are set
 * aside as comments until export, and a BMAD_FRONTMATTER_INVALID warning says so. A `workflow.md`
 * with no frontmatter `name` at all (later BMAD pipelines: `# Title`, `<config>`, `<step name=…>`)
 * is the text of the workflow.yaml beside it, or else a workflow named after its folder
 * (BMAD_WORKFLOW_UNNAMED).
 */
import { parse } from 'yaml';
import { errorIssue, warningIssue, type ValidationIssue } from '../bmad/issues.ts';
import { setAsideFrontmatter } from './generated.ts';
import { readStepText, type StepText } from './links.ts';
import { expandVariables } from './resolve.ts';

export interface Candidate {
  /** The file that holds the workflow's text: workflow.md, workflow-x.md, or a legacy workflow's instructions file. */
  path: string;
  dir: string;
  name: string;
  description?: string;
  /** The text, its invalid frontmatter (if any) set aside. */
  text: StepText;
  /** Frontmatter (or workflow.yaml) string values, for `{variables}` in links. */
  vars: Record<string, unknown>;
  /** The legacy workflow.yaml this workflow was read from (it stays an asset). */
  legacy?: string;
}

// Extensions in any letter case (`workflow.MD`, written on systems that upper-case them): plainly the same files.
const WORKFLOW_FILE = /^workflow(-[A-Za-z0-9._-]+)?\.md$/iu;
const LEGACY_FILE = /^workflow\.ya?ml$/iu;

export const dirOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/') + 1) : '');
export const baseOf = (path: string) => path.slice(path.lastIndexOf('/') + 1);
/** `workflow.md` in any letter case: a folder's main workflow file. */
export const isMainWorkflowFile = (path: string) => baseOf(path).toLowerCase() === 'workflow.md';
const folderName = (dir: string) => baseOf(dir.replace(/\/$/u, ''));
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/** A `workflow.md` whose frontmatter names nothing and is not a `.bmad` one (which has `schemaVersion`). */
function isNameless(path: string, read: StepText): boolean {
  return isMainWorkflowFile(path) && read.frontmatterOk && !text(read.frontmatter.name) && read.frontmatter.schemaVersion === undefined;
}

function fromMarkdown(path: string, content: string, issues: ValidationIssue[]): Candidate | null {
  const read = readStepText(content);
  if (read.frontmatterOk) {
    const name = text(read.frontmatter.name);
    if (!name) return null;
    const description = text(read.frontmatter.description);
    return { path, dir: dirOf(path), name, ...(description ? { description } : {}), text: read, vars: read.frontmatter };
  }
  const nameLine = /^name:[ \t]*['"]?(.+?)['"]?[ \t]*\r?$/mu.exec(content.split(/\r?\n---[ \t]*\r?\n/u)[0] ?? '')?.[1]?.trim();
  const name = nameLine || folderName(dirOf(path)) || 'workflow';
  issues.push(
    warningIssue(
      'BMAD_FRONTMATTER_INVALID',
      path,
      `The frontmatter of ${path} is not valid YAML, so its name, description and variables could not be read; the workflow was imported as "${name}" and its frontmatter lines are kept as comments until export.`,
      { hint: 'Quote values that contain ": " or start with a special character, then import again.' },
    ),
  );
  return { path, dir: dirOf(path), name, text: readStepText(setAsideFrontmatter(content)), vars: {} };
}

function fromLegacyYaml(path: string, content: string, files: ReadonlyMap<string, string>, issues: ValidationIssue[]): Candidate | null {
  const dir = dirOf(path);
  let doc: unknown;
  try {
    doc = parse(content, { maxAliasCount: 100 });
  } catch {
    doc = undefined;
  }
  if (!isRecord(doc)) {
    issues.push(warningIssue('BMAD_FRONTMATTER_INVALID', path, `${path} is not valid YAML, so the legacy workflow it describes was not read; it is kept as a file.`));
    return null;
  }
  const named = text(doc.instructions);
  const base = named && !/^false$/iu.test(named) ? baseOf(expandVariables(named, doc)) : undefined;
  // Without its instructions file, a workflow.md beside it that names nothing is its text (later BMAD pipelines).
  const instructions = [base, 'instructions.md', 'instructions.xml', 'workflow.md'].filter((b): b is string => !!b).map((b) => dir + b).find((p) => files.has(p));
  const name = text(doc.name) ?? (folderName(dir) || 'workflow');
  if (!instructions) {
    issues.push(
      errorIssue('BMAD_NO_STEPS', path, `${path} is a legacy BMAD workflow (workflow.yaml), but its instructions file (${base ?? 'instructions.md'}) is not in the upload, so it has no steps to import.`, {
        params: { name },
        hint: 'Upload the workflow folder with its instructions.md, or convert it to workflow.md with steps/.',
      }),
    );
    return null;
  }
  const description = text(doc.description);
  return { path: instructions, dir, name, ...(description ? { description } : {}), text: readStepText(files.get(instructions)!), vars: doc, legacy: path };
}

/** The workflows of the upload: workflow.md before workflow-*.md in one folder, folders in path order. */
export function findWorkflowFiles(files: ReadonlyMap<string, string>): { candidates: Candidate[]; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const found: Candidate[] = [];
  for (const [path, content] of files) {
    if (!WORKFLOW_FILE.test(baseOf(path))) continue;
    const candidate = fromMarkdown(path, content, issues);
    if (candidate) found.push(candidate);
  }
  const mdDirs = new Set(found.map((c) => c.dir));
  for (const [path, content] of files) {
    if (!LEGACY_FILE.test(baseOf(path)) || mdDirs.has(dirOf(path))) continue;
    const candidate = fromLegacyYaml(path, content, files, issues);
    if (candidate) found.push(candidate);
  }
  // A workflow.md that names nothing, with no workflow file or workflow.yaml of its folder read: a workflow all the same.
  const taken = new Set(found.flatMap((c) => [c.dir, c.path]));
  for (const [path, content] of files) {
    if (taken.has(dirOf(path)) || taken.has(path)) continue;
    const read = readStepText(content);
    if (!isNameless(path, read)) continue;
    const name = folderName(dirOf(path)) || 'workflow';
    issues.push(
      warningIssue('BMAD_WORKFLOW_UNNAMED', path, `${path} has no frontmatter name (and no workflow.yaml beside it names the workflow), so the workflow was named "${name}" after its folder.`, {
        params: { path, name },
        hint: 'Rename the workflow in the Builder, or give workflow.md a frontmatter with name and description and import again.',
      }),
    );
    found.push({ path, dir: dirOf(path), name, text: read, vars: read.frontmatter });
  }
  const rank = (c: Candidate) => (isMainWorkflowFile(c.path) || c.legacy ? 0 : 1);
  return { candidates: found.sort((a, b) => a.dir.localeCompare(b.dir) || rank(a) - rank(b) || a.path.localeCompare(b.path)), issues };
}
