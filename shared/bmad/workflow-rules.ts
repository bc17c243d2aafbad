/** Rules for workflow.md beyond its schema: Steps Index links resolve, run state names real nodes. */
import { warningIssue } from './issues.ts';
import type { ValidationIssue } from './issues.ts';
import type { WorkflowFrontmatter } from './models.ts';
import { isExternalLink } from './paths.ts';
import { stepsIndexLinks } from './steps-index.ts';

/** Warns for every `## Steps Index` link that points at no file of the package. */
export function checkStepsIndex(
  body: string,
  workflowMdPath: string,
  bodyStartLine: number,
  existingPaths: ReadonlySet<string>,
): ValidationIssue[] {
  return stepsIndexLinks(body, workflowMdPath, bodyStartLine)
    .filter((link) => !isExternalLink(link.target))
    .filter((link) => link.resolved === null || !existingPaths.has(link.resolved))
    .map((link) =>
      warningIssue(
        'WORKFLOW_STEPS_INDEX_BROKEN_LINK',
        workflowMdPath,
        link.resolved === null
          ? `Steps Index link "${link.target}" (line ${link.line}) points outside the package.`
          : `Steps Index link "${link.target}" (line ${link.line}) points at ${link.resolved}, which does not exist.`,
        { hint: 'Links are relative to the folder of workflow.md, e.g. steps/step-01.md. Fix the link or remove the line.' },
      ),
    );
}

/** Warns when currentNodeId or stepsCompleted names a node the graph does not have. */
export function checkWorkflowState(
  frontmatter: WorkflowFrontmatter,
  nodeIds: ReadonlySet<string>,
  filePath: string,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const known = [...nodeIds].join(', ');
  if (frontmatter.currentNodeId !== '' && !nodeIds.has(frontmatter.currentNodeId)) {
    issues.push(
      warningIssue('WORKFLOW_STATE_UNKNOWN_NODE', filePath, `currentNodeId "${frontmatter.currentNodeId}" is not a node of the graph.`, {
        pointer: '/currentNodeId',
        hint: `Use the graph's entryNodeId, or "" before the first step. Nodes: ${known}.`,
      }),
    );
  }
  frontmatter.stepsCompleted.forEach((id, i) => {
    if (nodeIds.has(id)) return;
    issues.push(
      warningIssue('WORKFLOW_STATE_UNKNOWN_NODE', filePath, `stepsCompleted lists "${id}", which is not a node of the graph.`, {
        pointer: `/stepsCompleted/${i}`,
        hint: 'A package is usually exported with stepsCompleted: [].',
      }),
    );
  });
  return issues;
}
