/**
 * Export a project as a `.bmad` zip in the multi-workflow layout, all or nothing: any
 * validation error means no zip (422 with every problem); warnings travel beside it.
 */
import { strToU8, zipSync } from 'fflate';
import type { Db } from '../db/client.ts';
import { ApiError } from '../../shared/api-error.ts';
import { loadStoredPackage, packageNameFrom } from './stored-package.ts';
import { packageToFiles, toErrorDetail, validatePackage, type ValidationIssue } from '../../shared/bmad/index.ts';

export async function exportPackage(
  db: Db,
  projectId: string,
): Promise<{ zip: Uint8Array; fileName: string; warnings: ValidationIssue[] }> {
  const { pkg, projectName } = await loadStoredPackage(db, projectId);
  const report = validatePackage(pkg);
  if (!report.valid) {
    throw new ApiError('PKG_VALIDATION_FAILED', {
      message: `The package has ${report.errors.length} problem(s); fix them before exporting.`,
      details: report.errors.map(toErrorDetail),
      extra: { warnings: report.warnings },
    });
  }
  const files = packageToFiles(pkg);
  const entries: Record<string, Uint8Array> = {};
  for (const [path, text] of files) entries[path] = strToU8(text);
  return { zip: zipSync(entries, { level: 6 }), fileName: `${packageNameFrom(projectName)}.bmad`, warnings: report.warnings };
}
