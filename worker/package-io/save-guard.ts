/**
 * Builder saves run the import's validation for the file they write and refuse, before anything
 * is written, a file the package could not load: every reason in one 422 (FILE_NOT_LOADABLE),
 * so nothing unloadable ever becomes a revision. Which rules refuse: shared/bmad/save-rules.ts.
 */
import { ApiError } from '../../shared/api-error.ts';
import { agentSaveRefusals, graphSaveRefusals, stepSaveRefusals, toErrorDetail, workflowMdSaveRefusals } from '../../shared/bmad/index.ts';
import type { ValidationIssue } from '../../shared/bmad/index.ts';
import { packageFilePath } from './validate-stored.ts';

function refuse(filePath: string, issues: ValidationIssue[]): void {
  if (issues.length === 0) return;
  throw new ApiError('FILE_NOT_LOADABLE', {
    message: `${filePath} has ${issues.length} problem(s) that would stop the package from loading; nothing was saved.`,
    details: issues.map(toErrorDetail),
    hints: ['Fix every listed problem and save again.'],
  });
}

export function guardWorkflowFile(workflowId: string, file: 'workflow' | 'graph', content: string): void {
  if (file === 'graph') {
    const path = packageFilePath.graph(workflowId);
    refuse(path, graphSaveRefusals(content, path));
  } else {
    const path = packageFilePath.workflowMd(workflowId);
    refuse(path, workflowMdSaveRefusals(content, path));
  }
}

export function guardStep(filePath: string, nodeId: string, markdown: string): void {
  refuse(filePath, stepSaveRefusals(markdown, filePath, nodeId));
}

/** `ids`: the agent ids of agents.json now, in file order. */
export function guardAgent(agentId: string, agent: Record<string, unknown>, ids: readonly string[]): void {
  const index = ids.indexOf(agentId);
  const others = ids.filter((_, i) => i !== index);
  refuse(packageFilePath.agents(), agentSaveRefusals({ ...agent, id: agentId }, index < 0 ? ids.length : index, others));
}
