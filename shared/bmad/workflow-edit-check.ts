/**
 * What a graph edit newly breaks in one workflow: the graph file and every step file of the
 * workflow validated with the package rules (graph rules, node and step references, step bodies,
 * transitions), before and after the edit, and the errors that only the edited workflow has.
 * Scoped to the workflow on purpose: a package-wide stage-1 failure elsewhere (a fresh project's
 * empty agents.json) would stop the package pipeline before the graph rules ever ran.
 */
import type { ValidationIssue } from './issues.ts';
import { validateGraph, validateStepFile } from './validate-file.ts';
import type { GraphNode } from './models.ts';
import { WorkflowGraph } from './models.ts';

export interface WorkflowFiles {
  graphPath: string;
  workflowMdPath: string;
  graphJson: string;
  steps: ReadonlyArray<{ path: string; markdown: string }>;
  /** Agent ids of the package, when its agents file can be read; otherwise agents are not checked. */
  agentIds?: readonly string[];
  assetPaths?: readonly string[];
}

function parsedGraph(text: string): WorkflowGraph | undefined {
  try {
    const result = WorkflowGraph.safeParse(JSON.parse(text));
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}

/** Every issue of the workflow's graph and step files, as the package pipeline would report them. */
export function workflowIssues(files: WorkflowFiles): ValidationIssue[] {
  const agents = files.agentIds ? { agentIds: files.agentIds } : {};
  const issues = [
    ...validateGraph(files.graphJson, {
      filePath: files.graphPath,
      workflowMdPath: files.workflowMdPath,
      stepPaths: files.steps.map((s) => s.path),
      ...agents,
    }).issues,
  ];
  const graph = parsedGraph(files.graphJson);
  const nodeOf = new Map<string, GraphNode>((graph?.nodes ?? []).map((n) => [n.file, n]));
  for (const step of files.steps) {
    const node = nodeOf.get(step.path);
    const successors = node && graph ? graph.edges.filter((e) => e.from === node.id).map((e) => e.to) : undefined;
    issues.push(
      ...validateStepFile(step.markdown, {
        filePath: step.path,
        ...(node ? { node, successors: successors ?? [] } : {}),
        ...agents,
        ...(files.assetPaths ? { assetPaths: files.assetPaths } : {}),
      }).issues,
    );
  }
  return issues;
}

/**
 * The errors of `after` that `before` did not have. Counted per file and code, so a problem that
 * was already there does not block an edit even when its message or pointer moves with it.
 */
export function newErrors(before: readonly ValidationIssue[], after: readonly ValidationIssue[]): ValidationIssue[] {
  const key = (i: ValidationIssue) => `${i.filePath}\u0000${i.code}`;
  const had = new Map<string, ValidationIssue[]>();
  for (const issue of before) if (issue.severity === 'error') had.set(key(issue), [...(had.get(key(issue)) ?? []), issue]);
  const now = new Map<string, ValidationIssue[]>();
  for (const issue of after) if (issue.severity === 'error') now.set(key(issue), [...(now.get(key(issue)) ?? []), issue]);
  const added: ValidationIssue[] = [];
  for (const [k, list] of now) {
    const old = had.get(k) ?? [];
    if (list.length <= old.length) continue;
    // Name the ones whose words are new; when all read as before, the group as a whole grew.
    const oldMessages = new Set(old.map((i) => i.message));
    const fresh = list.filter((i) => !oldMessages.has(i.message));
    added.push(...(fresh.length > 0 ? fresh : list));
  }
  return added;
}
