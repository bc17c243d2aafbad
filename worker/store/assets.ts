/** Text assets of a project (`assets/**`), under assets_revision, with path and size rules. */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { assets, projects } from '../db/schema.ts';
import { ApiError } from '../../shared/api-error.ts';
import { nowIso } from '../../shared/ids.ts';
import { sha256Hex } from '../../shared/hash.ts';
import { commitChanges, expectRevision, type CommitContext, type ObjectWrite, type Statement } from './commit.ts';
import { formatObjectKey } from '../../shared/object-keys.ts';
import { assetPathClash, checkAssetPath, checkAssetQuota, checkAssetSize, type AssetCheck } from '../../shared/bmad/asset-path.ts';
import type { AssetSummaryView, AssetView, AssetsView } from '../../shared/api/store.ts';
import { manifestAfterAssetRename, manifestWithBomAt, storedBomAt } from '../package-io/stored-package.ts';

export function validAssetPath(path: string): string {
  const result = checkAssetPath(path);
  refuse(result);
  return (result as Extract<AssetCheck, { ok: true }>).path;
}

async function assetsRevision(db: Db, projectId: string): Promise<number> {
  return (await assetsState(db, projectId)).revision;
}

/** The assets revision and the stored manifest (which lists the files uploaded with a BOM), in one read. */
async function assetsState(db: Db, projectId: string): Promise<{ revision: number; manifestJson: string | null }> {
  const row = await db
    .select({ revision: projects.assetsRevision, manifestJson: projects.manifestJson })
    .from(projects)
    .where(eq(projects.id, projectId))
    .get();
  if (!row) throw new ApiError('PROJECT_NOT_FOUND');
  return row;
}

/** The statement that writes the stored manifest with `path`'s BOM on or off; none when it changes nothing. */
function bomStatements(db: Db, projectId: string, manifestJson: string | null, path: string, bom: boolean): Statement[] {
  const next = manifestWithBomAt(manifestJson, path, bom);
  return next === null ? [] : [db.update(projects).set({ manifestJson: next }).where(eq(projects.id, projectId))];
}

export async function listAssets(db: Db, projectId: string): Promise<AssetsView> {
  const revision = await assetsRevision(db, projectId);
  const rows: AssetSummaryView[] = await db
    .select({ path: assets.path, bytes: assets.bytes, sha256: assets.sha256, updatedAt: assets.updatedAt })
    .from(assets)
    .where(eq(assets.projectId, projectId))
    .orderBy(asc(assets.path));
  return { revision, assets: rows };
}

async function findAsset(db: Db, projectId: string, path: string) {
  return db
    .select()
    .from(assets)
    .where(and(eq(assets.projectId, projectId), eq(assets.path, path)))
    .get();
}

export async function getAsset(db: Db, projectId: string, path: string): Promise<{ asset: AssetView; revision: number }> {
  const revision = await assetsRevision(db, projectId);
  const row = await findAsset(db, projectId, validAssetPath(path));
  if (!row) throw new ApiError('ASSET_NOT_FOUND', { message: `There is no asset at ${path}.` });
  return {
    revision,
    asset: { path: row.path, content: row.content, bytes: row.bytes, sha256: row.sha256, updatedAt: row.updatedAt },
  };
}

function refuse(check: { ok: true } | Extract<AssetCheck, { ok: false }>): void {
  if (!check.ok) {
    throw new ApiError(check.code, { message: check.message, hints: [check.hint] });
  }
}

/** The project's other assets, path and size (at most the 200 the quota allows, so one small read). */
function otherAssets(db: Db, projectId: string, path: string) {
  return db
    .select({ path: assets.path, bytes: assets.bytes })
    .from(assets)
    .where(and(eq(assets.projectId, projectId), sql`${assets.path} <> ${path}`))
    .all();
}

/** `path` may hold `content` beside the project's other assets: size, quota, and no clash once unpacked. */
async function checkLimits(db: Db, projectId: string, path: string, content: string) {
  refuse(checkAssetSize(path, content));
  const others = await otherAssets(db, projectId, path);
  refuse(assetPathClash(path, others.map((a) => a.path)) ?? { ok: true });
  const bytes = others.reduce((sum, a) => sum + a.bytes, 0);
  refuse(checkAssetQuota(others.length + 1, bytes + new TextEncoder().encode(content).byteLength));
}

export async function assetRow(projectId: string, path: string, content: string) {
  const bytes = new TextEncoder().encode(content).byteLength;
  return { projectId, path, content, bytes, sha256: await sha256Hex(content), updatedAt: nowIso() };
}

export function upsertAssetStatement(db: Db, row: Awaited<ReturnType<typeof assetRow>>): Statement {
  return db
    .insert(assets)
    .values(row)
    .onConflictDoUpdate({
      target: [assets.projectId, assets.path],
      set: { content: row.content, bytes: row.bytes, sha256: row.sha256, updatedAt: row.updatedAt },
    });
}

export function deleteAssetStatement(db: Db, projectId: string, path: string): Statement {
  return db.delete(assets).where(and(eq(assets.projectId, projectId), eq(assets.path, path)));
}

async function commitAssets(db: Db, ctx: CommitContext, expected: number, writes: ObjectWrite[], statements: Statement[]) {
  const [revision] = (
    await commitChanges(db, ctx, [{ scope: { kind: 'assets' }, expectedRevision: expected, writes, statements }])
  ).revisions;
  return revision!;
}

/**
 * Writes the asset at `path`. A new file there has no BOM on export, whatever a file deleted from
 * that path had (an older project's manifest may still list it), unless `revert.bom` says the file
 * a revert brings back had one.
 */
export async function putAsset(
  db: Db,
  ctx: CommitContext,
  input: { path: string; content: string; baseRevision?: number | undefined },
  revert?: { bom: boolean },
): Promise<number> {
  const path = validAssetPath(input.path);
  const state = await assetsState(db, ctx.projectId);
  const expected = expectRevision(state.revision, input.baseRevision);
  await checkLimits(db, ctx.projectId, path, input.content);
  const row = await assetRow(ctx.projectId, path, input.content);
  const existing = await findAsset(db, ctx.projectId, path);
  return commitAssets(
    db,
    ctx,
    expected,
    [
      {
        objectKey: formatObjectKey({ kind: 'asset', path }),
        action: revert ? 'revert' : existing ? 'update' : 'create',
        contentBefore: existing?.content ?? null,
        contentAfter: input.content,
      },
    ],
    [upsertAssetStatement(db, row), ...(existing ? [] : bomStatements(db, ctx.projectId, state.manifestJson, path, revert?.bom ?? false))],
  );
}

export async function deleteAsset(
  db: Db,
  ctx: CommitContext,
  pathInput: string,
  baseRevision: number | undefined,
  action?: 'revert',
): Promise<number> {
  const path = validAssetPath(pathInput);
  const state = await assetsState(db, ctx.projectId);
  const expected = expectRevision(state.revision, baseRevision);
  const existing = await findAsset(db, ctx.projectId, path);
  if (!existing) throw new ApiError('ASSET_NOT_FOUND', { message: `There is no asset at ${path}.` });
  // Its BOM goes with it; the history row keeps it, for a revert that brings the file back.
  const bom = storedBomAt(state.manifestJson, path);
  return commitAssets(
    db,
    ctx,
    expected,
    [
      {
        objectKey: formatObjectKey({ kind: 'asset', path }),
        action: action ?? 'delete',
        contentBefore: existing.content,
        contentAfter: null,
        ...(bom ? { meta: { bom: true } } : {}),
      },
    ],
    [deleteAssetStatement(db, ctx.projectId, path), ...bomStatements(db, ctx.projectId, state.manifestJson, path, false)],
  );
}

export async function renameAsset(
  db: Db,
  ctx: CommitContext,
  input: { from: string; to: string; baseRevision?: number | undefined },
): Promise<number> {
  const from = validAssetPath(input.from);
  const to = validAssetPath(input.to);
  const project = await db
    .select({ revision: projects.assetsRevision, manifestJson: projects.manifestJson })
    .from(projects)
    .where(eq(projects.id, ctx.projectId))
    .get();
  if (!project) throw new ApiError('PROJECT_NOT_FOUND');
  const expected = expectRevision(project.revision, input.baseRevision);
  const existing = await findAsset(db, ctx.projectId, from);
  if (!existing) throw new ApiError('ASSET_NOT_FOUND', { message: `There is no asset at ${from}.` });
  if (from === to) return expected;
  if (await findAsset(db, ctx.projectId, to)) {
    throw new ApiError('ASSET_EXISTS', { message: `An asset already exists at ${to}.` });
  }
  const others = (await otherAssets(db, ctx.projectId, from)).map((a) => a.path);
  refuse(assetPathClash(to, others) ?? { ok: true });
  const row = await assetRow(ctx.projectId, to, existing.content);
  // A BOM the asset was uploaded with follows it to its new name (only import writes the manifest).
  // The history rows say so, for a revert that brings the file back under its old name.
  const manifestJson = manifestAfterAssetRename(project.manifestJson, from, to);
  const manifest = manifestJson === null ? [] : [db.update(projects).set({ manifestJson }).where(eq(projects.id, ctx.projectId))];
  const bom = manifestJson === null ? {} : { bom: true };
  return commitAssets(
    db,
    ctx,
    expected,
    [
      { objectKey: formatObjectKey({ kind: 'asset', path: from }), action: 'rename', contentBefore: existing.content, contentAfter: null, meta: { to, ...bom } },
      { objectKey: formatObjectKey({ kind: 'asset', path: to }), action: 'rename', contentBefore: null, contentAfter: existing.content, meta: { from, ...bom } },
    ],
    [deleteAssetStatement(db, ctx.projectId, from), upsertAssetStatement(db, row), ...manifest],
  );
}
