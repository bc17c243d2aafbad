/**
 * The in-memory .bmad package every part of the product works on (import, the package store, the
 * editors, the AI overlay, validation, export). Files are kept as text, exactly as written, so
 * validation can point into a broken file and nothing is lost on a round trip.
 */

export const MANIFEST_PATH = 'bmad.json';
export const DEFAULT_AGENTS_PATH = 'agents.json';
/** The workflow id given to a single-workflow package (root workflow.md). */
export const SINGLE_WORKFLOW_ID = 'main';

export interface BmadStepFile {
  /** The graph node that uses this file, when known (set by packageFromFiles). */
  nodeId?: string;
  /** Path from the package root, e.g. `workflows/x/steps/a.md`; graph `node.file` uses the same form. */
  path: string;
  markdown: string;
}

export interface BmadWorkflow {
  id: string;
  displayName?: string;
  description?: string;
  tags?: string[];
  workflowMdPath: string;
  graphPath: string;
  /** null: the file is missing (validation reports FILE_MISSING). */
  workflowMd: string | null;
  graphJson: string | null;
  steps: BmadStepFile[];
}

export interface BmadAsset {
  /** `assets/...` */
  path: string;
  content: string;
}

export interface BmadPackage {
  /** bmad.json as written; null when missing. */
  manifestJson: string | null;
  /** Where agents.json lives; `agents.json` unless bmad.json `entry.agents` says otherwise. */
  agentsPath?: string;
  agentsJson: string | null;
  workflows: BmadWorkflow[];
  /** The workflow bmad.json `entry` points at; the first workflow when absent. */
  defaultWorkflowId?: string;
  assets: BmadAsset[];
  /** Files outside the .bmad layout: reported as warnings, never exported. */
  otherFiles?: BmadAsset[];
}

/** Every file path the package holds, for link and reference checks. */
export function packagePaths(pkg: BmadPackage): Set<string> {
  const paths = new Set<string>();
  if (pkg.manifestJson !== null) paths.add(MANIFEST_PATH);
  if (pkg.agentsJson !== null) paths.add(pkg.agentsPath ?? DEFAULT_AGENTS_PATH);
  for (const w of pkg.workflows) {
    if (w.workflowMd !== null) paths.add(w.workflowMdPath);
    if (w.graphJson !== null) paths.add(w.graphPath);
    for (const s of w.steps) paths.add(s.path);
  }
  for (const a of pkg.assets) paths.add(a.path);
  return paths;
}
