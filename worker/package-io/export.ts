/**
 * Export a project as a zip, all or nothing: any validation error means no zip (422 with every
 * problem). Two layouts: `.bmad` (the multi-workflow layout) and `bmad-method` (the folders the
 * project was imported from, generated fields stripped: shared/bmad-method/export.ts). Warnings
 * travel beside the file and inside it, as WARNINGS.md. A `.bmad` also carries the project's own
 * name and domain profile when bmad.json cannot say them, and a BMAD-METHOD import's origin record
 * (shared/bmad/project-file.ts), with its content language (when an import would not detect it) and
 * settings, so its bmad.json stays within the closed v1.1 schema; and every
 * file uploaded with a UTF-8 BOM gets it back under whatever name it is written.
 */
import type { Db } from '../db/client.ts';
import { ApiError } from '../../shared/api-error.ts';
import { loadStoredPackage, packageNameFrom } from './stored-package.ts';
import { zipEntries } from './zip-write.ts';
import {
  MANIFEST_PATH,
  PROJECT_FILE_PATH,
  deriveManifest,
  eolOf,
  packageToFilesWithSources,
  projectFileText,
  toErrorDetail,
  validatePackage,
  type ValidationIssue,
} from '../../shared/bmad/index.ts';
import { exportBmadMethod } from '../../shared/bmad-method/export.ts';
import { detectContentLanguage } from '../../shared/i18n/content-language.ts';
import { WARNINGS_FILE, isExportWarnings, warningsMarkdown, type ExportLayout } from './warnings-file.ts';

export async function exportPackage(
  db: Db,
  projectId: string,
  layout: ExportLayout = 'bmad',
): Promise<{ zip: Uint8Array; fileName: string; asciiFileName: string; warnings: ValidationIssue[] }> {
  const { pkg, projectName, domainProfile, contentLanguage, settings, origin, boms } = await loadStoredPackage(db, projectId);
  const report = validatePackage(pkg);
  if (!report.valid) {
    throw new ApiError('PKG_VALIDATION_FAILED', {
      message: `The package has ${report.errors.length} problem(s); fix them before exporting.`,
      details: report.errors.map(toErrorDetail),
      extra: { warnings: report.warnings },
    });
  }
  let files: Map<string, string>;
  /** Written path → the stored file it was written from. */
  let sources: Map<string, string>;
  let warnings: ValidationIssue[];
  if (layout === 'bmad-method') {
    const out = exportBmadMethod(pkg, origin);
    ({ files, sources } = out);
    warnings = [...report.warnings, ...out.warnings];
  } else {
    ({ files, sources } = packageToFilesWithSources(pkg));
    warnings = report.warnings;
    // The project's own name, domain profile, content language and settings, and where a BMAD-METHOD
    // import's files came from: bmad.json has no field for them (an author's asset at that path wins).
    const project = projectFileText(
      { name: projectName, domainProfile, contentLanguage, settings, bmadMethod: origin },
      { name: deriveManifest(pkg).name, contentLanguage: detectContentLanguage(pkg) },
      eolOf(files.get(MANIFEST_PATH)),
    );
    if (project !== null && !files.has(PROJECT_FILE_PATH)) files.set(PROJECT_FILE_PATH, project);
  }
  const utf8 = new TextEncoder();
  const entries = new Map<string, Uint8Array>();
  // A file that came with a UTF-8 BOM gets it back under whatever path it is written (older
  // projects list the path it was uploaded at: there too).
  const withBom = new Set(boms);
  const bom = (path: string) => withBom.has(sources.get(path) ?? path) || withBom.has(path);
  for (const [path, text] of files) entries.set(path, utf8.encode(bom(path) ? `\uFEFF${text}` : text));
  // The report is of this export: one an earlier export left among the files (a project imported
  // before imports dropped it) is replaced; only an author's own WARNINGS.md is kept.
  const stale = files.has(WARNINGS_FILE) && isExportWarnings(files.get(WARNINGS_FILE)!);
  if (stale) entries.delete(WARNINGS_FILE);
  if (warnings.length > 0 && !entries.has(WARNINGS_FILE)) entries.set(WARNINGS_FILE, utf8.encode(warningsMarkdown(warnings, layout)));
  // Saved under the project's own name (any script); the package name is the ASCII fallback.
  const named = (name: string) => (layout === 'bmad' ? `${name}.bmad` : `${name}-bmad-method.zip`);
  return { zip: zipEntries(entries), fileName: named(projectName), asciiFileName: named(packageNameFrom(projectName)), warnings };
}
