/**
 * Pipeline stage 1 over a whole package: every file parsed and shape-checked. All failures are
 * collected (not only the first); any failure means the rule stages do not run (schemaFailed).
 */
import { errorIssue } from './issues.ts';
import type { ValidationIssue } from './issues.ts';
import type { AgentsFile, BmadManifest, StepFrontmatter, WorkflowFrontmatter, WorkflowGraph } from './models.ts';
import { DEFAULT_AGENTS_PATH, MANIFEST_PATH } from './package.ts';
import type { BmadPackage, BmadStepFile, BmadWorkflow } from './package.ts';
import { parseAgentsFile, parseGraphFile, parseManifestFile, parseStepFile, parseWorkflowMdFile } from './parse-files.ts';
import type { FileParse } from './parse-files.ts';

export interface ParsedStep {
  file: BmadStepFile;
  frontmatter: StepFrontmatter;
  body: string;
  bodyStartLine: number;
}

export interface ParsedWorkflow {
  workflow: BmadWorkflow;
  frontmatter: WorkflowFrontmatter;
  body: string;
  bodyStartLine: number;
  graph: WorkflowGraph;
  steps: ParsedStep[];
}

export interface ParsedPackage {
  manifest: BmadManifest;
  agents: AgentsFile;
  workflows: ParsedWorkflow[];
}

export type PackageParse = { ok: true; parsed: ParsedPackage } | { ok: false; issues: ValidationIssue[] };

function missing(filePath: string, what: string): ValidationIssue {
  return errorIssue('FILE_MISSING', filePath, `${filePath} is missing.`, { hint: `A .bmad package needs ${what}.` });
}

export function parsePackage(pkg: BmadPackage): PackageParse {
  const issues: ValidationIssue[] = [];
  const collect = <T>(result: FileParse<T>): T | undefined => {
    if (result.ok) return result.data;
    issues.push(...result.issues);
    return undefined;
  };
  const absent = (issue: ValidationIssue): undefined => {
    issues.push(issue);
    return undefined;
  };

  const manifest =
    pkg.manifestJson === null
      ? absent(missing(MANIFEST_PATH, 'a bmad.json manifest at its root'))
      : collect(parseManifestFile(pkg.manifestJson, MANIFEST_PATH));
  const agentsPath = pkg.agentsPath ?? DEFAULT_AGENTS_PATH;
  const agents =
    pkg.agentsJson === null
      ? absent(missing(agentsPath, 'an agents.json with at least one agent'))
      : collect(parseAgentsFile(pkg.agentsJson, agentsPath));

  if (pkg.workflows.length === 0) {
    issues.push(
      errorIssue('PKG_NO_WORKFLOW', MANIFEST_PATH, 'The package contains no workflow.', {
        hint: 'Add workflow.md and workflow.graph.json at the root, or list workflows in bmad.json "workflows".',
      }),
    );
  }

  const workflows: ParsedWorkflow[] = [];
  for (const workflow of pkg.workflows) {
    const md =
      workflow.workflowMd === null
        ? absent(missing(workflow.workflowMdPath, `a workflow.md for workflow "${workflow.id}"`))
        : collect(parseWorkflowMdFile(workflow.workflowMd, workflow.workflowMdPath));
    const graph =
      workflow.graphJson === null
        ? absent(missing(workflow.graphPath, `a workflow.graph.json for workflow "${workflow.id}"`))
        : collect(parseGraphFile(workflow.graphJson, workflow.graphPath));
    const steps: ParsedStep[] = [];
    for (const file of workflow.steps) {
      const step = collect(parseStepFile(file.markdown, file.path));
      if (step) steps.push({ file, ...step });
    }
    if (md && graph) {
      workflows.push({ workflow, frontmatter: md.frontmatter, body: md.body, bodyStartLine: md.bodyStartLine, graph, steps });
    }
  }

  if (issues.length > 0 || !manifest || !agents) return { ok: false, issues };
  return { ok: true, parsed: { manifest, agents, workflows } };
}
