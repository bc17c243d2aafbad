/**
 * Pipeline stage 2, BMAD rules: the manifest's entry points into the package, ids are unique,
 * graph rules hold, step bodies have their sections, workflow.md's index and state are sound.
 */
import { checkGraph } from './graph-rules.ts';
import { errorIssue } from './issues.ts';
import type { ValidationIssue } from './issues.ts';
import { ID_PATTERN } from './formats.ts';
import { duplicateAgentIdIssues } from './loose-rules.ts';
import type { AgentsFile, BmadManifest } from './models.ts';
import { DEFAULT_AGENTS_PATH, MANIFEST_PATH, packagePaths } from './package.ts';
import type { BmadPackage } from './package.ts';
import type { ValidationStage } from './stage.ts';
import { checkStepBody } from './step-body.ts';
import { checkStepsIndex, checkWorkflowState } from './workflow-rules.ts';

export function checkAgentIds(agents: AgentsFile, filePath: string): ValidationIssue[] {
  return duplicateAgentIdIssues(
    agents.agents.map((agent) => agent.id),
    filePath,
  );
}

/** bmad.json `entry` must point at files of this package. */
export function checkManifestEntry(manifest: BmadManifest, pkg: BmadPackage): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const workflowPaths = pkg.workflows.map((w) => w.workflowMdPath);
  const graphPaths = pkg.workflows.map((w) => w.graphPath);
  const agentsPath = pkg.agentsPath ?? DEFAULT_AGENTS_PATH;
  const checks = [
    ['workflow', manifest.entry.workflow, workflowPaths],
    ['graph', manifest.entry.graph, graphPaths],
    ['agents', manifest.entry.agents, [agentsPath]],
  ] as const;
  for (const [field, value, known] of checks) {
    if (known.includes(value)) continue;
    issues.push(
      errorIssue('MANIFEST_ENTRY_NOT_FOUND', MANIFEST_PATH, `entry.${field} is "${value}", which is not a ${field} file of this package.`, {
        pointer: `/entry/${field}`,
        hint: `Use one of: ${known.join(', ')}.`,
      }),
    );
  }
  return issues;
}

function checkWorkflowIds(manifest: BmadManifest, pkg: BmadPackage): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  pkg.workflows.forEach((workflow, i) => {
    if (!ID_PATTERN.test(workflow.id)) {
      issues.push(
        errorIssue('WORKFLOW_INVALID_ID', workflow.workflowMdPath, `Workflow id "${workflow.id}" is not a valid id.`, {
          params: { id: workflow.id },
          hint: "Ids start with a letter or digit and contain only letters, digits, '.', '_', ':' and '-'.",
        }),
      );
    }
    if (seen.has(workflow.id)) {
      const listed = manifest.workflows?.[i]?.id === workflow.id;
      issues.push(
        errorIssue('WORKFLOW_DUPLICATE_ID', listed ? MANIFEST_PATH : workflow.workflowMdPath, `Workflow id "${workflow.id}" is used twice.`, {
          params: { id: workflow.id },
          pointer: listed ? `/workflows/${i}/id` : undefined,
          hint: 'Give every workflow its own id.',
        }),
      );
    }
    seen.add(workflow.id);
  });
  return issues;
}

export const bmadRulesStage: ValidationStage = {
  id: 'bmad-rules',
  order: 2,
  run({ pkg, parsed, report }) {
    report(...checkManifestEntry(parsed.manifest, pkg));
    report(...checkWorkflowIds(parsed.manifest, pkg));
    report(...checkAgentIds(parsed.agents, pkg.agentsPath ?? DEFAULT_AGENTS_PATH));
    const paths = packagePaths(pkg);
    for (const w of parsed.workflows) {
      report(...checkGraph(w.graph, w.workflow.graphPath));
      report(...checkStepsIndex(w.body, w.workflow.workflowMdPath, w.bodyStartLine, paths));
      report(...checkWorkflowState(w.frontmatter, new Set(w.graph.nodes.map((n) => n.id)), w.workflow.workflowMdPath));
      for (const step of w.steps) {
        report(...checkStepBody(step.body, step.file.path, step.bodyStartLine, { bmadMethod: step.frontmatter.origin === 'bmad-method' }));
      }
    }
  },
};
