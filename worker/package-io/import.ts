/**
 * Import a `.bmad` zip, or a BMAD-METHOD folder zip (prepare-import.ts derives the package), as a
 * new project: unpack with guards, validate with the shared pipeline,
 * then write the project, its membership, workflows, steps and assets in ONE D1 batch, so a
 * failure leaves nothing behind. Each row is its own statement with bound parameters, which
 * keeps every statement far below D1's 100 KB SQL and 100-parameter limits however large the
 * package is. The package is stored in the multi-workflow layout (what export writes), so
 * import(export(p)) is p.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { projectMembers, projects, workflowSteps, workflows } from '../db/schema.ts';
import { ApiError } from '../../shared/api-error.ts';
import { newId } from '../../shared/ids.ts';
import { runBatch, type Statement } from '../store/commit.ts';
import { assetRow, upsertAssetStatement } from '../store/assets.ts';
import { getProject } from '../store/projects.ts';
import { prepareImport, type ImportLayout, type ImportPreview, type PreparedImport } from './prepare-import.ts';
import { parseFrontmatter, toErrorDetail, type BmadStepFile, type ValidationIssue } from '../../shared/bmad/index.ts';
import { BOM_FILES_KEY, ORIGIN_KEY, storedManifestText } from './stored-package.ts';
import { ProjectSettings, type ProjectView } from '../../shared/api/projects.ts';

function stepNodeId(step: BmadStepFile): string {
  if (step.nodeId) return step.nodeId;
  const parsed = parseFrontmatter(step.markdown);
  const nodeId = parsed.ok ? parsed.value.data.nodeId : undefined;
  return typeof nodeId === 'string' && nodeId ? nodeId : step.path.split('/').pop()!.replace(/\.md$/iu, '');
}

async function suggestName(db: Db, userId: string, wanted: string): Promise<string | undefined> {
  const rows = await db
    .select({ name: projects.name })
    .from(projectMembers)
    .innerJoin(projects, eq(projects.id, projectMembers.projectId))
    .where(eq(projectMembers.userId, userId));
  const taken = new Set(rows.map((r) => r.name.toLowerCase()));
  if (!taken.has(wanted.toLowerCase())) return undefined;
  for (let n = 2; ; n++) {
    const candidate = `${wanted} (${n})`;
    if (!taken.has(candidate.toLowerCase())) return candidate;
  }
}

/** The name an import of `prepared` asks for: the one typed, else the project file's, else bmad.json's (undefined when there is none to read). */
function wantedName(prepared: PreparedImport, requestedName: string | undefined): string | undefined {
  let manifestName: unknown;
  try {
    manifestName = (JSON.parse(prepared.original.manifestJson ?? 'null') as { name?: unknown } | null)?.name;
  } catch {
    manifestName = undefined;
  }
  const name = requestedName?.trim() || prepared.project?.name || (typeof manifestName === 'string' ? manifestName.trim() || 'package' : undefined);
  return name?.slice(0, 100);
}

/**
 * What importing `zip` would write, and the name it would get (ImportPreview `name`, with the
 * " (2)" an import confirmed under that name takes when the person has a project called so).
 * Writes nothing.
 */
export async function previewImport(db: Db, userId: string, zip: Uint8Array, requestedName?: string): Promise<ImportPreview> {
  const prepared = prepareImport(zip);
  const name = wantedName(prepared, requestedName);
  if (name === undefined) return prepared.preview;
  const suggestedName = await suggestName(db, userId, name);
  return { ...prepared.preview, ...(suggestedName ? { name: suggestedName, nameTaken: name } : { name }) };
}

export async function importPackage(
  db: Db,
  userId: string,
  zip: Uint8Array,
  requestedName?: string,
): Promise<{ project: ProjectView; layout: ImportLayout; warnings: ValidationIssue[] }> {
  const prepared = prepareImport(zip);
  const { original, pkg, origin, preview } = prepared;
  if (!preview.valid) {
    throw new ApiError('PKG_VALIDATION_FAILED', {
      message: `The package has ${prepared.errors.length} problem(s) that must be fixed before it can be imported; nothing was written.`,
      details: prepared.errors.map(toErrorDetail),
      extra: { warnings: prepared.warnings },
    });
  }
  const manifest = JSON.parse(original.manifestJson!) as { version: string; description?: string };
  // A BMAD-METHOD import keeps where each workflow came from beside the manifest, for the export
  // back, and any import the files that came with a UTF-8 BOM (the export puts it back).
  const kept = { ...(origin ? { [ORIGIN_KEY]: origin } : {}), ...(prepared.boms.length > 0 ? { [BOM_FILES_KEY]: prepared.boms } : {}) };
  const manifestJson = storedManifestText(original.manifestJson!, kept);
  // A .bmad this product exported names its project (any script) beside the package's own name.
  const name = wantedName(prepared, requestedName)!;
  const suggestedName = await suggestName(db, userId, name);
  if (suggestedName) {
    throw new ApiError('PKG_NAME_CONFLICT', {
      message: `You already have a project called "${name}".`,
      hints: [`Import it as "${suggestedName}", or rename the existing project first.`],
      extra: { suggestedName },
    });
  }

  const projectId = newId('prj');
  const statements: Statement[] = [
    db.insert(projects).values({
      id: projectId,
      name,
      description: manifest.description ?? '',
      version: manifest.version,
      manifestJson,
      agentsJson: pkg.agentsJson!,
      ...(prepared.project?.domainProfile ? { domainProfileJson: JSON.stringify(prepared.project.domainProfile) } : {}),
      // The project file's settings (each valid one; the others keep their defaults).
      ...(prepared.project?.settings ? { settingsJson: JSON.stringify(ProjectSettings.parse(prepared.project.settings)) } : {}),
      contentLanguage: preview.contentLanguage,
      createdBy: userId,
    }),
    db.insert(projectMembers).values({ projectId, userId, role: 'owner' }),
  ];
  const defaultId = pkg.defaultWorkflowId ?? pkg.workflows[0]?.id;
  // Each workflow's place is its place in the package (bmad.json workflows[]): the rows of one batch
  // often share a created_at, which would leave the ids' alphabetical order.
  for (const [position, workflow] of pkg.workflows.entries()) {
    statements.push(
      db.insert(workflows).values({
        projectId,
        id: workflow.id,
        name: workflow.displayName ?? workflow.id,
        isDefault: workflow.id === defaultId,
        workflowMd: workflow.workflowMd!,
        graphJson: workflow.graphJson!,
        position,
      }),
    );
    const nodeIds = new Set<string>();
    for (const step of workflow.steps) {
      const nodeId = stepNodeId(step);
      if (nodeIds.has(nodeId)) {
        throw new ApiError('PKG_VALIDATION_FAILED', {
          details: [{ path: step.path, message: `Two step files of workflow "${workflow.id}" are for node "${nodeId}".` }],
        });
      }
      nodeIds.add(nodeId);
      statements.push(db.insert(workflowSteps).values({ projectId, workflowId: workflow.id, nodeId, path: step.path, markdown: step.markdown }));
    }
  }
  for (const asset of pkg.assets) statements.push(upsertAssetStatement(db, await assetRow(projectId, asset.path, asset.content)));
  await runBatch(db, statements);
  return { project: await getProject(db, projectId, 'owner'), layout: preview.layout, warnings: prepared.warnings };
}
