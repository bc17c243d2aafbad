/**
 * Everything an import decides before it writes, for both the preview and the confirm (which
 * re-derives from the same zip, so the server keeps no state between them): unpack with guards,
 * tell the layout (.bmad with bmad.json, or BMAD-METHOD folders), derive the package, validate it,
 * and collect every warning and every reason to refuse.
 */
import { ApiError } from '../../shared/api-error.ts';
import { packageFilesOf, unpackFiles, wrapperFolder } from './unpack.ts';
import {
  layoutMoves,
  packageFromFiles,
  takeManifestOrigin,
  takeProjectFile,
  toMultiWorkflowLayout,
  validatePackage,
  type BmadPackage,
  type ProjectFileInfo,
  type ValidationIssue,
  type ValidationReport,
} from '../../shared/bmad/index.ts';
import { exportBmadMethod } from '../../shared/bmad-method/export.ts';
import { deriveBmadMethod, isBmadMethodLayout, type BmadMethodOrigin } from '../../shared/bmad-method/derive.ts';
import type { ImportLayout, ImportNote, ImportPreview } from '../../shared/bmad-method/preview.ts';
import { detectContentLanguage } from '../../shared/i18n/content-language.ts';
import { isExportWarnings, WARNINGS_FILE } from './warnings-file.ts';
import { asciiAssetPaths, withAssetNames } from '../../shared/bmad-method/ascii-assets.ts';
import { MAX_JSON_DEPTH, jsonNestsDeeper } from '../../shared/json-depth.ts';

export type { ImportLayout, ImportNote, ImportPreview };

export interface PreparedImport {
  preview: ImportPreview;
  /** The package as uploaded (bmad.json kept), and as it is stored (multi-workflow layout). */
  original: BmadPackage;
  pkg: BmadPackage;
  origin: BmadMethodOrigin | null;
  /** The raw issues behind the preview's notes, for the import answer and its refusal. */
  warnings: ValidationIssue[];
  errors: ValidationIssue[];
  /** Files uploaded with a UTF-8 BOM, by the path each is stored at, for the export to put it back. */
  boms: string[];
  /** What a .bmad this product exported says of its project (shared/bmad/project-file.ts), when it has that file. */
  project: ProjectFileInfo | null;
}

/**
 * The stored path of each file uploaded with a BOM (`uploaded`: paths in the upload), through the
 * moves the import made (`moves`: upload path → stored path); a path it cannot follow stays.
 */
const storedBoms = (uploaded: readonly string[], moves: ReadonlyMap<string, string>) => uploaded.map((path) => moves.get(path) ?? path);

/**
 * A BMAD-METHOD upload's paths → stored paths: the export back writes each stored file where it
 * came from, so its written → stored paths are just that.
 */
const bmadMethodMoves = (pkg: BmadPackage, origin: BmadMethodOrigin | null) => exportBmadMethod(pkg, origin).sources;

const note = (issue: ValidationIssue): ImportNote => ({
  code: issue.code,
  path: issue.filePath,
  message: issue.message,
  ...(issue.hint ? { hint: issue.hint } : {}),
  ...(issue.params ? { params: issue.params } : {}),
});

function tryParse(text: string | null): unknown {
  try {
    return text === null ? null : (JSON.parse(text) as unknown);
  } catch {
    return null;
  }
}

function agentsOf(pkg: BmadPackage): ImportPreview['agents'] {
  const doc = tryParse(pkg.agentsJson) as { agents?: Array<{ id?: unknown; metadata?: { name?: unknown } }> } | null;
  return (doc?.agents ?? []).map((a) => ({ id: String(a.id ?? ''), name: String(a.metadata?.name ?? '') }));
}

/** A bmad.json at the top, or inside the folders that hold everything (how .bmad zips are read). */
function hasManifest(unpacked: { files: ReadonlyMap<string, string>; binaries: readonly string[] }): boolean {
  return unpacked.files.has(`${wrapperFolder([...unpacked.files.keys(), ...unpacked.binaries])}bmad.json`);
}

/**
 * The WARNINGS.md an export wrote beside the package's own files (at the top, or in the folders
 * that hold everything) is a report on that export, not part of the package: kept, it would be
 * an asset, and later exports would ship it stale.
 */
function dropExportWarnings(files: Map<string, string>): void {
  const path = `${wrapperFolder([...files.keys()])}${WARNINGS_FILE}`;
  if (files.has(path) && isExportWarnings(files.get(path)!)) files.delete(path);
}

/** The shallowest bmad.json or workflow.md of an upload that has none where the import looks: where the package may be. */
function packageFileDeeper(files: ReadonlyMap<string, string>): string | undefined {
  const found = [...files.keys()].filter((p) => /(^|\/)(bmad\.json|workflow\.md)$/iu.test(p));
  return found.sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b))[0];
}

/** The refusal of an upload with nothing to import at its top, saying where a package file sits deeper when one does. */
function nothingAtTop(files: ReadonlyMap<string, string>): ApiError {
  const deeper = packageFileDeeper(files);
  const folder = deeper?.slice(0, deeper.lastIndexOf('/') + 1);
  return new ApiError('PKG_INVALID_FORMAT', {
    message: deeper
      ? `This zip has neither a bmad.json nor a BMAD-METHOD workflow.md at its top, so there is nothing to import; there is a ${deeper.slice(folder!.length)} at ${deeper}, but other files sit beside the folders around it.`
      : 'This zip has neither a bmad.json nor a BMAD-METHOD workflow.md at its top, so there is nothing to import.',
    ...(deeper ? { details: [{ path: deeper, message: `A ${deeper.slice(folder!.length)} is here, in ${folder}.`, hint: `Zip the folder ${folder} on its own.` }] } : {}),
    hints: [
      deeper
        ? `Zip the folder ${folder} on its own (the one that holds ${deeper.slice(folder!.length)}), then import that zip.`
        : 'Zip the folder that holds bmad.json, or a BMAD-METHOD workflow folder (workflow.md with name and description, and its steps/).',
    ],
  });
}

/**
 * Every .json file of the upload (bmad.json, agents.json, graphs, JSON assets) is held to the
 * nesting depth request bodies are, before anything parses it: `JSON.parse` takes any depth, but
 * what walks the value afterwards (hashing, the validators) recurses, and 40,000 levels overflow
 * the stack (a 500 instead of a refusal that names the file).
 */
function refuseDeepJson(files: ReadonlyMap<string, string>): void {
  const deep = [...files].filter(([path, text]) => /\.json$/iu.test(path) && jsonNestsDeeper(text)).map(([path]) => path);
  if (deep.length === 0) return;
  throw new ApiError('PKG_VALIDATION_FAILED', {
    message: `${deep.join(', ')} ${deep.length === 1 ? 'nests' : 'nest'} objects or arrays more than ${MAX_JSON_DEPTH} levels deep, deeper than any package file needs; nothing was imported.`,
    details: deep.map((path) => ({
      code: 'JSON_PARSE_ERROR',
      path,
      message: `${path} nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep.`,
      hint: `Flatten the file so no value sits more than ${MAX_JSON_DEPTH} levels inside another.`,
    })),
  });
}

/**
 * A problem of an asset the import gave an ASCII name (`asset-1a2b3c4d.docx`) is about the file
 * the author uploaded: it names that path, never the generated one.
 */
function namedAsUploaded(report: ValidationReport, renamedFrom: ReadonlyMap<string, string>): ValidationReport {
  if (renamedFrom.size === 0) return report;
  const named = (issue: ValidationIssue): ValidationIssue => {
    const from = renamedFrom.get(issue.filePath);
    return from === undefined ? issue : { ...issue, filePath: from, message: issue.message.split(issue.filePath).join(from) };
  };
  return { ...report, issues: report.issues.map(named), errors: report.errors.map(named), warnings: report.warnings.map(named) };
}

export function prepareImport(zip: Uint8Array): PreparedImport {
  const unpacked = unpackFiles(zip);
  if (!unpacked.ok) throw new ApiError(unpacked.code, { message: unpacked.message, ...(unpacked.details ? { details: unpacked.details } : {}) });
  dropExportWarnings(unpacked.files);
  refuseDeepJson(unpacked.files);
  if (hasManifest(unpacked) || !isBmadMethodLayout(unpacked.files)) {
    // The .bmad layout keeps its strict reading: text files only, bmad.json at the top (from the entries inflated above).
    const strict = packageFilesOf(unpacked);
    if (!strict.ok) {
      if (strict.code === 'PKG_INVALID_FORMAT' && !hasManifest(unpacked)) throw nothingAtTop(unpacked.files);
      throw new ApiError(strict.code, { message: strict.message, ...(strict.details ? { details: strict.details } : {}) });
    }
    // A .bmad this product exported says what its project was called, its domain profile and, for a
    // BMAD-METHOD import, where its files came from; not an asset. One exported before that record
    // moved to the project file has it in bmad.json: taken out there, so bmad.json meets v1.1.
    const project = takeProjectFile(strict.files);
    const manifestOrigin = takeManifestOrigin(strict.files);
    const originRead = project?.bmadMethod ?? manifestOrigin;
    const ascii = asciiAssetPaths(packageFromFiles(strict.files));
    const original = ascii.pkg;
    const renamedFrom = new Map(ascii.renames.map((r) => [r.to, r.from]));
    const validated = namedAsUploaded(validatePackage(original), renamedFrom);
    // An origin record that breaks its rules (a folder outside the zip) refuses the import, as a schema error would.
    const originErrors = originRead?.ok === false ? originRead.issues : [];
    const report = {
      ...validated,
      valid: validated.valid && originErrors.length === 0,
      issues: [...originErrors, ...validated.issues],
      errors: [...originErrors, ...validated.errors],
    };
    const pkg = toMultiWorkflowLayout(original);
    const moved = layoutMoves(original, pkg);
    for (const r of ascii.renames) moved.set(r.from, moved.get(r.to) ?? r.to);
    const projectWarnings = project?.warnings ?? [];
    return {
      original,
      pkg,
      // A .bmad exported from a BMAD-METHOD import carries where its files came from (validated above).
      origin: report.valid && originRead?.ok ? originRead.record : null,
      boms: storedBoms(strict.boms, moved),
      project,
      warnings: [...ascii.issues, ...projectWarnings, ...report.warnings],
      errors: report.errors,
      preview: {
        layout: 'bmad',
        valid: report.valid,
        // The project file's language (one the exporting project set by hand) wins over the detected one.
        contentLanguage: project?.contentLanguage ?? detectContentLanguage(original),
        workflows: pkg.workflows.map((w) => ({
          id: w.id,
          name: w.displayName ?? w.id,
          graph: tryParse(w.graphJson),
          steps: w.steps.map((s) => ({ file: s.path, nodeId: s.nodeId ?? s.path })),
        })),
        assets: pkg.assets.map((a) => ({ path: a.path, ...(renamedFrom.has(a.path) ? { renamedFrom: renamedFrom.get(a.path)! } : {}) })),
        agents: agentsOf(pkg),
        warnings: [...ascii.issues, ...projectWarnings, ...report.warnings].map(note),
        errors: report.errors.map(note),
      },
    };
  }
  const derived = deriveBmadMethod(unpacked.files, unpacked.binaries);
  const ascii = asciiAssetPaths(derived.pkg);
  const renamedTo = new Map(ascii.renames.map((r) => [r.from, r.to]));
  // Export back gives each renamed asset its own name again (shared/bmad-method/export.ts).
  const origin = withAssetNames(derived.origin, ascii.renames);
  const report = validatePackage(ascii.pkg);
  const stored = toMultiWorkflowLayout(ascii.pkg);
  const deriveErrors = derived.issues.filter((i) => i.severity === 'error');
  const deriveWarnings = [...derived.issues.filter((i) => i.severity === 'warning'), ...ascii.issues];
  const errors = [...deriveErrors, ...(derived.workflows.length > 0 ? report.errors : [])];
  const warnings = [...deriveWarnings, ...report.warnings];
  return {
    original: ascii.pkg,
    pkg: stored,
    origin,
    // (Followed only for a package that will be stored: a refused one is never exported.)
    boms: unpacked.boms.length === 0 || errors.length > 0 ? unpacked.boms : storedBoms(unpacked.boms, bmadMethodMoves(stored, origin)),
    project: null,
    warnings,
    errors,
    preview: {
      layout: 'bmad-method',
      valid: errors.length === 0 && derived.workflows.length > 0,
      contentLanguage: detectContentLanguage(ascii.pkg),
      workflows: derived.workflows.map((w) => ({ id: w.id, name: w.name, source: w.source, graph: w.graph, steps: w.steps })),
      assets: derived.assets.map((a) => (renamedTo.has(a.path) ? { ...a, path: renamedTo.get(a.path)!, renamedFrom: a.path } : a)),
      agents: derived.agents,
      warnings: warnings.map(note),
      errors: errors.map(note),
    },
  };
}
