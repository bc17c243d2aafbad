/**
 * The stored package as a BmadPackage (shared/bmad): the same in-memory model that import,
 * validation and export use, so the Builder's checks and the AI's see one thing.
 */
import { and, asc, eq, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { assets, projects, workflowSteps, workflows } from '../db/schema.ts';
import { workflowOrder } from '../store/workflow-order.ts';
import { ApiError } from '../../shared/api-error.ts';
import { deriveManifest, eolOf, jsonFileText, manifestText, type BmadPackage, type BmadWorkflow } from '../../shared/bmad/index.ts';
import type { DomainProfile, ProjectSettings } from '../../shared/api/projects.ts';
import { parseContentLanguage, type ContentLanguage } from '../../shared/i18n/content-language.ts';
import { parseDomainProfile, parseProjectSettings } from '../store/projects.ts';
import { originFromManifest, type BmadMethodOrigin } from '../../shared/bmad-method/derive.ts';

/**
 * The stored manifest's list of the files that were uploaded with a UTF-8 BOM, by their path in the
 * store (a project imported before the list followed renames lists paths as the upload laid them
 * out). Not part of the format: the derived bmad.json leaves it out, and an export puts the BOM back
 * on each file it writes from one of these paths, under whatever name it writes it (or at one of them).
 */
export const BOM_FILES_KEY = 'crewagentUtf8Bom';

/**
 * The author's bmad.json, byte for byte, when the import had to add BOM_FILES_KEY to the stored
 * manifest and the author's layout (indent, key order) differs from the one the product writes:
 * an export whose manifest says the same as the author's writes the author's text.
 */
export const MANIFEST_TEXT_KEY = 'crewagentManifestText';

/**
 * The stored manifest's origin record of a BMAD-METHOD import (shared/bmad-method/derive.ts): how
 * to export back. Kept beside the manifest, not in it: the derived bmad.json leaves it out (v1.1
 * closes its top level), and a `.bmad` export carries it in the project file
 * (shared/bmad/project-file.ts).
 */
export const ORIGIN_KEY = 'bmadMethod';

/** The keys the product adds to a stored manifest, none of them the author's. */
const PRODUCT_KEYS = [BOM_FILES_KEY, ORIGIN_KEY];

/** The stored manifest text for an import: the author's text, or with the product's keys added and the author's text kept. */
export function storedManifestText(authored: string, kept: Record<string, unknown>): string {
  if (Object.keys(kept).length === 0) return authored;
  const manifest = JSON.parse(authored) as Record<string, unknown>;
  const eol = eolOf(authored);
  const rewritten = jsonFileText(manifest, eol) === authored;
  return jsonFileText({ ...manifest, ...kept, ...(rewritten ? {} : { [MANIFEST_TEXT_KEY]: authored }) }, eol);
}

/**
 * The author's bmad.json text of a stored manifest (storedManifestText read back: with the product's
 * keys added and no MANIFEST_TEXT_KEY, the author's text was the manifest as the product writes it).
 */
function authoredManifestText(text: string | null, stored: StoredManifest): string | null {
  if (typeof stored[MANIFEST_TEXT_KEY] === 'string') return stored[MANIFEST_TEXT_KEY];
  if (text === null || !PRODUCT_KEYS.some((key) => key in stored)) return text;
  const manifest = Object.fromEntries(Object.entries(stored).filter(([key]) => !PRODUCT_KEYS.includes(key)));
  return jsonFileText(manifest, eolOf(text));
}

/** The stored manifest's BOM_FILES_KEY list (empty when it has none). */
function bomList(stored: StoredManifest): string[] {
  const list = stored[BOM_FILES_KEY];
  return Array.isArray(list) ? list.filter((p): p is string => typeof p === 'string') : [];
}

/** Whether the stored manifest says the file at `path` was uploaded with a UTF-8 BOM. */
export function storedBomAt(text: string | null, path: string): boolean {
  return bomList(parseManifest(text)).includes(path);
}

/**
 * The stored manifest after an asset moved from `from` to `to`: its BOM follows it. Null when
 * nothing changes (the file had no BOM).
 */
export function manifestAfterAssetRename(text: string | null, from: string, to: string): string | null {
  const stored = parseManifest(text);
  const list = stored[BOM_FILES_KEY];
  if (!Array.isArray(list) || !list.includes(from)) return null;
  return jsonFileText({ ...stored, [BOM_FILES_KEY]: list.map((p: unknown) => (p === from ? to : p)) }, eolOf(text));
}

/**
 * The stored manifest with the file at `path` listed as having a BOM (`bom`) or not: a deleted
 * asset's BOM goes with it (a new file at its path is a new file), and a revert that brings the file
 * back brings its BOM. Null when nothing changes, or when there is no stored manifest (a project
 * made here: none of its files came with a BOM).
 */
export function manifestWithBomAt(text: string | null, path: string, bom: boolean): string | null {
  if (text === null) return null;
  const stored = parseManifest(text);
  const list = bomList(stored);
  if (list.includes(path) === bom) return null;
  return jsonFileText({ ...stored, [BOM_FILES_KEY]: bom ? [...list, path] : list.filter((p) => p !== path) }, eolOf(text));
}

interface StoredManifest {
  name?: unknown;
  /** Where each workflow came from, when the project was imported from the BMAD-METHOD layout (ORIGIN_KEY). */
  bmadMethod?: unknown;
  workflows?: Array<{ id?: unknown; description?: unknown; tags?: unknown }>;
  [key: string]: unknown;
}

function parseManifest(text: string | null): StoredManifest {
  try {
    const value: unknown = text ? JSON.parse(text) : {};
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as StoredManifest) : {};
  } catch {
    return {};
  }
}

/** A package name from a project name: lower case, dashes, never empty. */
export function packageNameFrom(projectName: string): string {
  return projectName.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'package';
}

function originOf(stored: StoredManifest): BmadMethodOrigin | null {
  const valid = originFromManifest(JSON.stringify(stored));
  if (valid) return valid;
  // An older record the model refuses (e.g. a folder name with a colon) still guides the BMAD-METHOD export.
  const origin = stored[ORIGIN_KEY] as Partial<BmadMethodOrigin> | undefined;
  if (!origin || origin.layout !== 'bmad-method' || !Array.isArray(origin.workflows)) return null;
  const workflows = origin.workflows.filter(
    (w): w is BmadMethodOrigin['workflows'][number] => typeof w?.id === 'string' && typeof w.dir === 'string' && typeof w.file === 'string',
  );
  return { layout: 'bmad-method', workflows };
}

/**
 * The four reads of a stored package, for one batch (a caller may add its own reads to it).
 * `guard`: a further condition on every read (a preload's membership check, auth/preload.ts).
 */
export function storedPackageQueries(db: Db, projectId: string, guard?: SQL) {
  return [
    db.select().from(projects).where(and(eq(projects.id, projectId), guard)),
    db.select().from(workflows).where(and(eq(workflows.projectId, projectId), guard)).orderBy(...workflowOrder),
    db.select().from(workflowSteps).where(and(eq(workflowSteps.projectId, projectId), guard)).orderBy(asc(workflowSteps.path)),
    db.select({ path: assets.path, content: assets.content }).from(assets).where(and(eq(assets.projectId, projectId), guard)).orderBy(asc(assets.path)),
  ] as const;
}

export type StoredPackageRows = readonly [
  Array<typeof projects.$inferSelect>,
  Array<typeof workflows.$inferSelect>,
  Array<typeof workflowSteps.$inferSelect>,
  Array<{ path: string; content: string }>,
];

export interface StoredPackage {
  pkg: BmadPackage;
  projectName: string;
  domainProfile: DomainProfile;
  contentLanguage: ContentLanguage;
  settings: ProjectSettings;
  origin: BmadMethodOrigin | null;
  /** Paths of the files uploaded with a UTF-8 BOM (BOM_FILES_KEY). */
  boms: string[];
}

export async function loadStoredPackage(
  db: Db,
  projectId: string,
): Promise<StoredPackage> {
  // One batch, one round trip: the four reads do not depend on each other.
  return storedPackageFrom(await db.batch(storedPackageQueries(db, projectId)));
}

/**
 * The package from the rows of storedPackageQueries.
 *
 * A workflow's folder is always `workflows/<id>/`, even when the uploaded .bmad gave a workflow
 * whose id has ":" a portable folder (an export writes `workflows/weekly_report/` for
 * `weekly:report`): so such a workflow keeps its WORKFLOW_FOLDER_NOT_PORTABLE warning after a
 * round trip, and the .bmad export keeps writing the portable folder. Kept on purpose. The folder
 * is not stored: the Worker (templates.ts, validate-stored.ts `packageFilePath`), the session
 * object (a new workflow or step in the effective view, the context envelope), the BMAD-METHOD
 * export and the app (the editor's issue paths) all derive it from the id, and a portable name
 * is not one per id (`a:b` and `a_b` would share `workflows/a_b/`, while step paths are unique in
 * a project), so keeping the uploaded or portable name would need a stored folder that all of
 * them read, and existing rows' step paths and graph `node.file`s moved. Step file names do not
 * have this problem: each step's path is stored, so the store keeps whatever name the package
 * gave, and a new step gets a portable one (shared/bmad/portable-names.ts `newStepFilePath`).
 */
export function storedPackageFrom([projectRows, workflowRows, stepRows, assetRows]: StoredPackageRows): StoredPackage {
  const project = projectRows[0];
  if (!project) throw new ApiError('PROJECT_NOT_FOUND');
  const stored = parseManifest(project.manifestJson);
  const manifestWorkflows = new Map((stored.workflows ?? []).map((w) => [w.id, w]));
  const list = workflowRows.map((w): BmadWorkflow => {
    const extra = manifestWorkflows.get(w.id);
    return {
      id: w.id,
      displayName: w.name,
      ...(typeof extra?.description === 'string' ? { description: extra.description } : {}),
      ...(Array.isArray(extra?.tags) ? { tags: extra.tags.filter((t): t is string => typeof t === 'string') } : {}),
      workflowMdPath: `workflows/${w.id}/workflow.md`,
      graphPath: `workflows/${w.id}/workflow.graph.json`,
      workflowMd: w.workflowMd,
      graphJson: w.graphJson,
      steps: stepRows.filter((s) => s.workflowId === w.id).map((s) => ({ nodeId: s.nodeId, path: s.path, markdown: s.markdown })),
    };
  });
  // The project's own fields win over the imported manifest: they are what people edit here. The
  // origin record (ORIGIN_KEY) is not a manifest field: `origin` below, for both exports.
  const fields = {
    ...stored,
    schemaVersion: '1.1',
    name: typeof stored.name === 'string' && stored.name ? stored.name : packageNameFrom(project.name),
    version: project.version,
    ...(project.description ? { description: project.description } : {}),
  };
  const main = workflowRows.find((w) => w.isDefault) ?? workflowRows[0];
  const pkg: BmadPackage = {
    manifestJson: JSON.stringify(fields),
    agentsJson: project.agentsJson,
    workflows: list,
    ...(main ? { defaultWorkflowId: main.id } : {}),
    assets: assetRows,
  };
  // entry and workflows[] always describe what is stored now, in the line ending the package came
  // with; a manifest that says just what the author's did is the author's text, byte for byte.
  pkg.manifestJson = manifestText(deriveManifest(pkg), authoredManifestText(project.manifestJson, stored));
  return {
    projectName: project.name,
    domainProfile: parseDomainProfile(project.domainProfileJson),
    contentLanguage: parseContentLanguage(project.contentLanguage),
    settings: parseProjectSettings(project.settingsJson),
    pkg,
    origin: originOf(stored),
    boms: bomList(stored),
  };
}
