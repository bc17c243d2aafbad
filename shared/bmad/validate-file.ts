/**
 * Single-file validators for the Builder editors' live validation on save. Each runs stage 1 for
 * its file and, when that passes, the rules that need only this file plus what the caller knows
 * (agent ids, step paths, asset paths). Same issue model and report as validatePackage.
 */
import { checkAgentIds } from './bmad-rules.ts';
import { checkGraph } from './graph-rules.ts';
import { parseJsonText } from './json-text.ts';
import { looseAgentIdIssues, looseGraphIdIssues } from './loose-rules.ts';
import { buildReport } from './issues.ts';
import type { ValidationIssue, ValidationReport } from './issues.ts';
import type { GraphNode } from './models.ts';
import { DEFAULT_AGENTS_PATH, MANIFEST_PATH } from './package.ts';
import { parseAgentsFile, parseGraphFile, parseManifestFile, parseStepFile, parseWorkflowMdFile } from './parse-files.ts';
import { dirOf } from './paths.ts';
import { checkNodeReferences, checkStepReferences } from './reference-rules.ts';
import { checkGraphPaths, checkManifestPaths } from './security-rules.ts';
import { checkStepBody } from './step-body.ts';
import { checkStepsIndex, checkWorkflowState } from './workflow-rules.ts';

/** Id rules over a JSON file that failed its schema but parsed (nothing more when it did not parse). */
function looseIssues(text: string, filePath: string, rules: (value: unknown, filePath: string) => ValidationIssue[]): ValidationIssue[] {
  const parsed = parseJsonText(text, filePath);
  return parsed.ok ? rules(parsed.value, filePath) : [];
}

export interface StepFileOptions {
  filePath?: string;
  /** The id of the node that uses this file: frontmatter nodeId must equal it. */
  nodeId?: string;
  /** The node itself and the ids it may go to, for the type/agent/transition warnings. */
  node?: GraphNode;
  successors?: readonly string[];
  agentIds?: readonly string[];
  assetPaths?: readonly string[];
}

export function validateStepFile(markdown: string, options: StepFileOptions = {}): ValidationReport {
  const filePath = options.filePath ?? 'step.md';
  const parsed = parseStepFile(markdown, filePath);
  if (!parsed.ok) return buildReport(parsed.issues, true);
  const { frontmatter, body, bodyStartLine } = parsed.data;
  const node: GraphNode | undefined =
    options.node ?? (options.nodeId === undefined ? undefined : { id: options.nodeId, type: frontmatter.type, file: filePath });
  const issues: ValidationIssue[] = [
    ...checkStepBody(body, filePath, bodyStartLine, { bmadMethod: frontmatter.origin === 'bmad-method' }),
    ...checkStepReferences({
      filePath,
      frontmatter,
      body,
      bodyStartLine,
      ...(node ? { node: { node, successors: new Set(options.successors ?? frontmatter.transitions?.map((t) => t.to) ?? []) } } : {}),
      ...(options.agentIds ? { agentIds: new Set(options.agentIds) } : {}),
      ...(options.assetPaths ? { assetPaths: new Set(options.assetPaths) } : {}),
    }),
  ];
  return buildReport(issues, false);
}

export interface GraphFileOptions {
  filePath?: string;
  agentIds?: readonly string[];
  /** Paths (from the package root) of the step files that exist: every node.file must be one. */
  stepPaths?: readonly string[];
  /** Path of the workflow.md beside this graph, for "did you mean" hints. */
  workflowMdPath?: string;
}

export function validateGraph(jsonText: string, options: GraphFileOptions = {}): ValidationReport {
  const filePath = options.filePath ?? 'workflow.graph.json';
  const parsed = parseGraphFile(jsonText, filePath);
  if (!parsed.ok) return buildReport([...parsed.issues, ...looseIssues(jsonText, filePath, looseGraphIdIssues)], true);
  const graph = parsed.data;
  return buildReport(
    [
      ...checkGraph(graph, filePath),
      ...checkNodeReferences(graph, filePath, {
        ...(options.stepPaths ? { stepPaths: new Set(options.stepPaths) } : {}),
        ...(options.agentIds ? { agentIds: new Set(options.agentIds) } : {}),
        workflowDir: options.workflowMdPath === undefined ? dirOf(filePath) : dirOf(options.workflowMdPath),
      }),
      ...checkGraphPaths(graph, filePath),
    ],
    false,
  );
}

export function validateAgentsJson(text: string, options: { filePath?: string } = {}): ValidationReport {
  const filePath = options.filePath ?? DEFAULT_AGENTS_PATH;
  const parsed = parseAgentsFile(text, filePath);
  if (!parsed.ok) return buildReport([...parsed.issues, ...looseIssues(text, filePath, looseAgentIdIssues)], true);
  return buildReport(checkAgentIds(parsed.data, filePath), false);
}

export interface WorkflowMdOptions {
  filePath?: string;
  /** Node ids of the workflow's graph, to check currentNodeId and stepsCompleted. */
  nodeIds?: readonly string[];
  /** Every file path of the package, to check the Steps Index links. */
  packagePaths?: readonly string[];
}

export function validateWorkflowMd(text: string, options: WorkflowMdOptions = {}): ValidationReport {
  const filePath = options.filePath ?? 'workflow.md';
  const parsed = parseWorkflowMdFile(text, filePath);
  if (!parsed.ok) return buildReport(parsed.issues, true);
  const { frontmatter, body, bodyStartLine } = parsed.data;
  return buildReport(
    [
      ...(options.packagePaths ? checkStepsIndex(body, filePath, bodyStartLine, new Set(options.packagePaths)) : []),
      ...(options.nodeIds ? checkWorkflowState(frontmatter, new Set(options.nodeIds), filePath) : []),
    ],
    false,
  );
}

export function validateManifest(text: string, options: { filePath?: string } = {}): ValidationReport {
  const filePath = options.filePath ?? MANIFEST_PATH;
  const parsed = parseManifestFile(text, filePath);
  if (!parsed.ok) return buildReport(parsed.issues, true);
  return buildReport(checkManifestPaths(parsed.data, filePath), false);
}
