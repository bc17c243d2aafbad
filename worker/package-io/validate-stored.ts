/**
 * The shared validation pipeline over the stored package. Manual saves are not blocked by it
 * (an author may be mid-edit); they answer with the issues of the file just saved.
 */
import type { Db } from '../db/client.ts';
import { loadStoredPackage } from './stored-package.ts';
import { validatePackage, type ValidationIssue, type ValidationReport } from '../../shared/bmad/index.ts';

export async function validateStoredPackage(db: Db, projectId: string): Promise<ValidationReport> {
  return validatePackage((await loadStoredPackage(db, projectId)).pkg);
}

/** Where each kind of stored file sits in the package (the multi-workflow layout). */
export const packageFilePath = {
  workflowMd: (workflowId: string) => `workflows/${workflowId}/workflow.md`,
  graph: (workflowId: string) => `workflows/${workflowId}/workflow.graph.json`,
  agents: () => 'agents.json',
};

export interface SaveResult {
  revision: number;
  /** Errors and warnings of the saved file, from the whole-package pipeline. */
  issues: ValidationIssue[];
  /** Counts over the whole package, for the Builder's status line. */
  packageIssues: { errors: number; warnings: number };
}

export async function saveResult(db: Db, projectId: string, revision: number, filePath: string): Promise<SaveResult> {
  return saveResultOf(await validateStoredPackage(db, projectId), revision, filePath);
}

/** A save's answer from the package's report. */
export function saveResultOf(report: ValidationReport, revision: number, filePath: string): SaveResult {
  return {
    revision,
    issues: report.issues.filter((issue) => issue.filePath === filePath),
    packageIssues: { errors: report.errors.length, warnings: report.warnings.length },
  };
}
