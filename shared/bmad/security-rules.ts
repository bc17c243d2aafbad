/**
 * Pipeline stage 5, security and paths: asset paths, extensions, sizes and counts (asset-path.ts),
 * graph and manifest file paths that stay inside the package, files outside the .bmad layout, and
 * step files or workflow folders whose names Windows cannot unpack (warnings).
 */
import { assetPathClash, checkAssetPath, checkAssetQuota, checkAssetSize } from './asset-path.ts';
import { errorIssue, warningIssue } from './issues.ts';
import type { ValidationIssue } from './issues.ts';
import { utf8ByteLength } from './limits.ts';
import type { BmadManifest, WorkflowGraph } from './models.ts';
import { MANIFEST_PATH } from './package.ts';
import type { BmadAsset, BmadPackage } from './package.ts';
import { toMultiWorkflowLayout } from './package-files.ts';
import type { ParsedPackage } from './parse-package.ts';
import { dirOf, isSafeRelativePath } from './paths.ts';
import { pathProblem } from './portable-names.ts';
import type { ValidationStage } from './stage.ts';

export function checkAssets(assets: readonly BmadAsset[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  /** Each path in lower case, and the folders (lower case) the paths sit in: for the clashes of assetPathClash. */
  const folded = new Map<string, string>();
  const folders = new Map<string, string>();
  let total = 0;
  for (const asset of assets) {
    total += utf8ByteLength(asset.content);
    if (seen.has(asset.path)) {
      issues.push(errorIssue('ASSET_INVALID_PATH', asset.path, `${asset.path} appears more than once.`, { hint: 'Keep one copy.' }));
      continue;
    }
    seen.add(asset.path);
    const lower = asset.path.toLowerCase();
    const twin = folded.get(lower) ?? folders.get(lower);
    const parts = lower.split('/');
    const parent = parts.slice(1, -1).map((_, i) => parts.slice(0, i + 2).join('/')).find((folder) => folded.has(folder));
    const clash = twin !== undefined ? assetPathClash(asset.path, [twin]) : parent !== undefined ? assetPathClash(asset.path, [folded.get(parent)!]) : null;
    if (clash) {
      issues.push(errorIssue(clash.code, asset.path, clash.message, { hint: clash.hint }));
      continue;
    }
    folded.set(lower, asset.path);
    for (let i = 2; i < parts.length; i++) folders.set(parts.slice(0, i).join('/'), asset.path);
    for (const check of [checkAssetPath(asset.path), checkAssetSize(asset.path, asset.content)]) {
      if (!check.ok) issues.push(errorIssue(check.code, asset.path, check.message, { hint: check.hint }));
    }
  }
  const quota = checkAssetQuota(assets.length, total);
  if (!quota.ok) issues.push(errorIssue(quota.code, 'assets/', quota.message, { hint: quota.hint }));
  return issues;
}

function unsafe(filePath: string, pointer: string, path: string, what: string): ValidationIssue {
  return errorIssue('PATH_UNSAFE', filePath, `${what} "${path}" is not a safe path inside the package.`, {
    pointer,
    hint: 'Use a relative path with / separators and no "." or ".." parts, e.g. workflows/main/steps/step-01.md.',
  });
}

export function checkGraphPaths(graph: WorkflowGraph, graphPath: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  graph.nodes.forEach((node, i) => {
    if (!isSafeRelativePath(node.file)) issues.push(unsafe(graphPath, `/nodes/${i}/file`, node.file, `Node "${node.id}" file`));
    else if (!/\.md$/iu.test(node.file)) {
      issues.push(
        errorIssue('PATH_UNSAFE', graphPath, `Node "${node.id}" file "${node.file}" is not a Markdown (.md) file.`, {
          pointer: `/nodes/${i}/file`,
          hint: 'Step files are Markdown files, e.g. steps/step-01.md.',
        }),
      );
    }
  });
  return issues;
}

export function checkManifestPaths(manifest: BmadManifest, filePath = MANIFEST_PATH): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const field of ['workflow', 'graph', 'agents'] as const) {
    const path = manifest.entry[field];
    if (!isSafeRelativePath(path)) issues.push(unsafe(filePath, `/entry/${field}`, path, `entry.${field}`));
  }
  (manifest.workflows ?? []).forEach((w, i) => {
    for (const field of ['workflow', 'graph'] as const) {
      if (!isSafeRelativePath(w[field])) issues.push(unsafe(filePath, `/workflows/${i}/${field}`, w[field], `workflows[${i}].${field}`));
    }
  });
  return issues;
}

const PORTABLE_HINT = 'A .bmad export needs nothing more. For a BMAD-METHOD export that opens on Windows, use a name without : * ? " < > |, not ending in a dot or a space, and not a device name such as CON or NUL.';

/**
 * Step files and workflow folders whose names Windows cannot create (an id with ":" gives one;
 * portable-names.ts): a warning naming the step or workflow, the name the .bmad export writes
 * instead (the same function the export uses, so the name is exact), and that a BMAD-METHOD export
 * keeps the name and will not unpack on Windows.
 */
export function checkPortableNames(pkg: BmadPackage, parsed: ParsedPackage): ValidationIssue[] {
  const found: Array<{ at: number; folder?: { reason: string }; nodes: Array<{ index: number; reason: string }> }> = [];
  for (const w of parsed.workflows) {
    const folder = dirOf(w.workflow.workflowMdPath);
    const folderProblem = folder === '' ? undefined : pathProblem(folder.slice(0, -1));
    const nodes: Array<{ index: number; reason: string }> = [];
    w.graph.nodes.forEach((node, index) => {
      if (!isSafeRelativePath(node.file)) return;
      // A problem of the workflow's own folder is said once, for the workflow.
      const problem = pathProblem(node.file.startsWith(folder) ? node.file.slice(folder.length) : node.file);
      if (problem) nodes.push({ index, reason: problem.reason });
    });
    if (folderProblem || nodes.length > 0) found.push({ at: pkg.workflows.indexOf(w.workflow), ...(folderProblem ? { folder: folderProblem } : {}), nodes });
  }
  if (found.length === 0) return [];
  const exported = toMultiWorkflowLayout(pkg, { portableNames: true }).workflows;
  const issues: ValidationIssue[] = [];
  for (const { at, folder, nodes } of found) {
    const workflow = pkg.workflows[at]!;
    const out = exported[at]!;
    if (folder) {
      const from = dirOf(workflow.workflowMdPath);
      const to = dirOf(out.workflowMdPath);
      issues.push(
        warningIssue('WORKFLOW_FOLDER_NOT_PORTABLE', workflow.workflowMdPath, `Workflow "${workflow.id}" is stored in the folder ${from}, a name Windows cannot unpack (${folder.reason}). The .bmad export writes it to ${to} and bmad.json records that folder; a BMAD-METHOD export keeps the name, so that zip will not unpack on Windows.`, {
          params: { id: workflow.id, folder: from, to },
          hint: PORTABLE_HINT,
        }),
      );
    }
    const graph = parsed.workflows.find((w) => w.workflow === workflow)!.graph;
    const files = (JSON.parse(out.graphJson!) as { nodes: Array<{ file: string }> }).nodes.map((n) => n.file);
    for (const { index, reason } of nodes) {
      const node = graph.nodes[index]!;
      issues.push(
        warningIssue('STEP_FILE_NOT_PORTABLE', workflow.graphPath, `Step "${node.id}" is stored as ${node.file}, a file name Windows cannot unpack (${reason}). The .bmad export writes it as ${files[index]} and the graph records that name; a BMAD-METHOD export keeps the name, so that zip will not unpack on Windows.`, {
          pointer: `/nodes/${index}/file`,
          params: { id: node.id, file: node.file, to: files[index]! },
          hint: PORTABLE_HINT,
        }),
      );
    }
  }
  return issues;
}

export const securityStage: ValidationStage = {
  id: 'security',
  order: 5,
  run({ pkg, parsed, report }) {
    report(...checkAssets(pkg.assets));
    report(...checkManifestPaths(parsed.manifest));
    for (const w of parsed.workflows) report(...checkGraphPaths(w.graph, w.workflow.graphPath));
    report(...checkPortableNames(pkg, parsed));
    for (const file of pkg.otherFiles ?? []) {
      report(
        warningIssue('PKG_UNKNOWN_FILE', file.path, `${file.path} is not part of the .bmad layout and will not be kept.`, {
          params: { path: file.path },
          hint: 'Move reference text under assets/ to keep it.',
        }),
      );
    }
  },
};
