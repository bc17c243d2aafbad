/**
 * The apply orchestrator: turn the reviewed overlay into ONE D1 batch — object
 * writes, revision bumps, revision_history rows with the content before, the change set marked
 * `applied`, the session touched and an `ai.apply.succeeded` audit event. D1 runs a batch as one
 * transaction, so any failing statement rolls every one of them back.
 *
 * Revisions follow a single-writer rule (the last apply wins, nothing is merged): a base the client (or the staged entry) names
 * that differs from the current revision is a non-blocking AI_REVISION_BASE_MISMATCH warning; the
 * batch is then guarded on the revision just read, and history keeps what was overwritten.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../../worker/db/client.ts';
import { aiAuditEvents, aiSessions, workflows } from '../../../worker/db/schema.ts';
import { commitChanges, type ObjectWrite, type ScopeChange, type Statement } from '../../../worker/store/commit.ts';
import { assetRow } from '../../../worker/store/assets.ts';
import { nextWorkflowPosition } from '../../../worker/store/workflow-order.ts';
import { deleteAssets, deleteSteps, upsertAssets, upsertSteps, type StepRow } from './bulk-statements.ts';
import { newId, nowIso } from '../../../shared/ids.ts';
import { parseObjectKey } from '../../../shared/object-keys.ts';
import { parseFrontmatter } from '../../../shared/bmad/index.ts';
import type { Baseline, ChangedFile } from '../../../shared/ai/overlay.ts';
import type { RevisionSet, RevisionWarning } from '../../../shared/ai/events.ts';
import type { SessionMeta } from '../../../shared/ai/session.ts';
import type { RevisionBase } from '../../../shared/ai/session-rpc.ts';
import { contentOf, pathOf, type EffectiveView } from '../overlay/effective-view.ts';
import { projects } from '../../../worker/db/schema.ts';

export interface ApplyInput {
  db: Db;
  view: EffectiveView;
  files: ChangedFile[];
  session: SessionMeta;
  actor: { userId: string; name: string };
  changeSetId: string;
  version: number;
  contentHash: string;
  /** null: the `ai_change_sets` row exists (the version was mirrored), only its status and validation change. */
  changeSetJson: string | null;
  validationJson: string;
  revisionBase: RevisionBase | undefined;
}

export interface ApplyOutcome {
  newRevision: RevisionSet;
  warnings: RevisionWarning[];
  writeId: string;
}

type ScopeKey = `workflow:${string}` | 'agents' | 'assets';

function mismatch(field: string, provided: number, current: number, label: string): RevisionWarning {
  return {
    code: 'AI_REVISION_BASE_MISMATCH',
    message: `${label} changed since these changes were prepared (revision ${provided} → ${current}); applying overwrites it, and history keeps the earlier content.`,
    field,
    provided,
    current,
    blocking: false,
  };
}

/** The workflow whose revision `workflowRevision` means: the session's, else the only one touched. */
function primaryWorkflow(session: SessionMeta, files: ChangedFile[]): string | null {
  if (session.workflowId) return session.workflowId;
  const touched = new Set(files.flatMap((f) => {
    const key = parseObjectKey(f.key);
    return key && 'workflowId' in key ? [key.workflowId] : [];
  }));
  return touched.size === 1 ? [...touched][0]! : null;
}

/** Compare the client's revisionBase and each staged entry's base with the current revisions. */
export function revisionWarnings(baseline: Baseline, view: EffectiveView, files: ChangedFile[], session: SessionMeta, base: RevisionBase | undefined): RevisionWarning[] {
  const warnings = new Map<string, RevisionWarning>();
  const current = baseline.revisions;
  const workflowId = primaryWorkflow(session, files);
  const workflowCurrent = workflowId ? current.workflows[workflowId] ?? 0 : null;
  if (base?.workflowRevision !== undefined && workflowCurrent !== null && base.workflowRevision !== workflowCurrent) {
    warnings.set('workflowRevision', mismatch('workflowRevision', base.workflowRevision, workflowCurrent, `Workflow "${workflowId}"`));
  }
  if (base?.agentsRevision !== undefined && base.agentsRevision !== current.agents) {
    warnings.set('agentsRevision', mismatch('agentsRevision', base.agentsRevision, current.agents, 'agents.json'));
  }
  if (base?.assetsRevision !== undefined && base.assetsRevision !== current.assets) {
    warnings.set('assetsRevision', mismatch('assetsRevision', base.assetsRevision, current.assets, 'The assets'));
  }
  for (const file of files) {
    const entry = view.entries.get(file.key);
    const key = parseObjectKey(file.key);
    if (!entry || !key || entry.baseRevision === 0) continue;
    const [field, now, label] =
      key.kind === 'agent'
        ? ['agentsRevision', current.agents, 'agents.json']
        : key.kind === 'asset'
          ? ['assetsRevision', current.assets, 'The assets']
          : 'workflowId' in key
            ? [key.workflowId === workflowId ? 'workflowRevision' : `workflowRevision:${key.workflowId}`, current.workflows[key.workflowId] ?? 0, `Workflow "${key.workflowId}"`]
            : [null, 0, ''];
    if (field && !warnings.has(field) && entry.baseRevision !== now) {
      warnings.set(field, mismatch(field, entry.baseRevision, now, label));
    }
  }
  return [...warnings.values()];
}

function workflowName(workflowMd: string, fallback: string): string {
  const parsed = parseFrontmatter(workflowMd);
  const name = parsed.ok ? parsed.value.data.name : undefined;
  return typeof name === 'string' && name.trim() ? name.trim().slice(0, 200) : fallback;
}

/** One file to write: a step (id = its node id) or an asset (id = its path). */
interface FileRow {
  id: string;
  path: string;
  content: string;
}

/** The rows of one scope's files, written as a few statements once every file is seen (bulk-statements.ts). */
interface FileRows {
  upserts: FileRow[];
  /** Ids (node ids, or asset paths) of the files deleted. */
  deletes: string[];
}

/** What building the scope changes needs: the view being applied, the batch's statements' db, one timestamp. */
interface ScopeBuild {
  db: Db;
  view: EffectiveView;
  projectId: string;
  now: string;
  scopes: Map<ScopeKey, ScopeChange>;
  /** Steps by workflow scope, assets under `assets`. */
  rows: Map<ScopeKey, FileRows>;
}

/**
 * Writes and statements per revision scope, in steps: each changed file adds its history entry
 * to its scope and its row to the scope's rows; then the rows become statements (deletes first,
 * so a freed path can be taken); then new workflows get their row first; then agents.json, one
 * column, is written once.
 */
async function scopeChanges(db: Db, view: EffectiveView, files: ChangedFile[]): Promise<Map<ScopeKey, ScopeChange>> {
  const build: ScopeBuild = { db, view, projectId: view.baseline.projectId, now: nowIso(), scopes: new Map(), rows: new Map() };
  for (const file of files) addFileChange(build, file);
  await writeRows(build);
  createNewWorkflows(build);
  writeAgentsDocument(build);
  return build.scopes;
}

function rowsOf(build: ScopeBuild, key: ScopeKey): FileRows {
  let rows = build.rows.get(key);
  if (!rows) build.rows.set(key, (rows = { upserts: [], deletes: [] }));
  return rows;
}

/** Each scope's collected step and asset rows as bulk statements; the assets' hashes computed together. */
async function writeRows(build: ScopeBuild): Promise<void> {
  const { db, projectId, now } = build;
  for (const [key, rows] of build.rows) {
    const change = scopeOf(build, key);
    if (key === 'assets') {
      const assets = await Promise.all(rows.upserts.map((r) => assetRow(projectId, r.path, r.content)));
      change.statements.push(...deleteAssets(projectId, rows.deletes), ...upsertAssets(db, projectId, assets, now));
    } else if (change.scope.kind === 'workflow') {
      const workflowId = change.scope.workflowId;
      const steps: StepRow[] = rows.upserts.map((r) => ({ nodeId: r.id, path: r.path, markdown: r.content }));
      change.statements.push(...deleteSteps(projectId, workflowId, rows.deletes), ...upsertSteps(db, projectId, workflowId, steps, now));
    }
  }
}

/** The scope of `key`, opened at the baseline's revision on first use. */
function scopeOf(build: ScopeBuild, key: ScopeKey): ScopeChange {
  const existing = build.scopes.get(key);
  if (existing) return existing;
  const revisions = build.view.baseline.revisions;
  const workflowId = key.startsWith('workflow:') ? key.slice('workflow:'.length) : null;
  const change: ScopeChange =
    workflowId !== null
      ? { scope: { kind: 'workflow', workflowId }, expectedRevision: revisions.workflows[workflowId] ?? 0, writes: [], statements: [] }
      : key === 'agents'
        ? { scope: { kind: 'agents' }, expectedRevision: revisions.agents, writes: [], statements: [] }
        : { scope: { kind: 'assets' }, expectedRevision: revisions.assets, writes: [], statements: [] };
  build.scopes.set(key, change);
  return change;
}

/** The history entry of one file: its content before and after. */
function recordWrite(build: ScopeBuild, change: ScopeChange, file: ChangedFile, extraMeta: Record<string, unknown> = {}): void {
  const { baseline, pkg } = build.view;
  const entry: ObjectWrite = {
    objectKey: file.key,
    action: 'ai_apply',
    contentBefore: contentOf(baseline.pkg, file.key),
    contentAfter: file.action === 'D' ? null : contentOf(pkg, file.key),
    meta: { op: file.action === 'A' ? 'create' : file.action === 'D' ? 'delete' : 'update', ...extraMeta },
  };
  change.writes.push(entry);
}

function addFileChange(build: ScopeBuild, file: ChangedFile): void {
  const key = parseObjectKey(file.key);
  if (!key) return;
  switch (key.kind) {
    case 'workflow':
    case 'graph':
      return addWorkflowFile(build, file, key);
    case 'step':
      return addStepFile(build, file, key);
    case 'agent':
      // The document itself is written once for all agents (writeAgentsDocument).
      return recordWrite(build, scopeOf(build, 'agents'), file);
    case 'asset':
      return addAssetFile(build, file, key.path);
    case 'workflow-name':
      return;
    default: {
      const never: never = key;
      throw new Error(`unknown key ${String(never)}`);
    }
  }
}

/** workflow.md or the graph of a workflow: updated in place when the workflow exists (a new one is created whole). */
function addWorkflowFile(build: ScopeBuild, file: ChangedFile, key: { kind: 'workflow' | 'graph'; workflowId: string }): void {
  const { db, view, projectId, now } = build;
  const change = scopeOf(build, `workflow:${key.workflowId}`);
  recordWrite(build, change, file, key.kind === 'workflow' ? { path: pathOf(view.pkg, file.key) } : {});
  if (view.baseline.revisions.workflows[key.workflowId] === undefined) return;
  const content = contentOf(view.pkg, file.key) ?? '';
  change.statements.push(
    db
      .update(workflows)
      .set(key.kind === 'workflow' ? { workflowMd: content, updatedAt: now } : { graphJson: content, updatedAt: now })
      .where(and(eq(workflows.projectId, projectId), eq(workflows.id, key.workflowId))),
  );
}

function addStepFile(build: ScopeBuild, file: ChangedFile, key: { workflowId: string; nodeId: string }): void {
  const { view } = build;
  const scope: ScopeKey = `workflow:${key.workflowId}`;
  const path = pathOf(view.pkg, file.key) ?? pathOf(view.baseline.pkg, file.key);
  recordWrite(build, scopeOf(build, scope), file, { path });
  const rows = rowsOf(build, scope);
  if (file.action === 'D') rows.deletes.push(key.nodeId);
  else rows.upserts.push({ id: key.nodeId, path: path!, content: contentOf(view.pkg, file.key) ?? '' });
}

function addAssetFile(build: ScopeBuild, file: ChangedFile, path: string): void {
  recordWrite(build, scopeOf(build, 'assets'), file, { path });
  const rows = rowsOf(build, 'assets');
  if (file.action === 'D') rows.deletes.push(path);
  else rows.upserts.push({ id: path, path, content: contentOf(build.view.pkg, file.key) ?? '' });
}

/** A new workflow: its row comes first in its scope (steps reference it), created at revision 1. */
function createNewWorkflows(build: ScopeBuild): void {
  const { db, view, projectId, now } = build;
  for (const change of build.scopes.values()) {
    if (change.scope.kind !== 'workflow' || change.expectedRevision !== 0) continue;
    const workflowId = change.scope.workflowId;
    const workflow = view.pkg.workflows.find((w) => w.id === workflowId);
    const workflowMd = workflow?.workflowMd ?? '';
    change.bump = false;
    change.statements.unshift(
      db.insert(workflows).values({
        projectId,
        id: workflowId,
        name: workflowName(workflowMd, workflowId),
        workflowMd,
        graphJson: workflow?.graphJson ?? '',
        revision: 1,
        position: nextWorkflowPosition(projectId),
        updatedAt: now,
      }),
    );
  }
}

/** agents.json is one column: write the effective document once. */
function writeAgentsDocument(build: ScopeBuild): void {
  const agents = build.scopes.get('agents');
  if (!agents) return;
  agents.statements.push(build.db.update(projects).set({ agentsJson: build.view.pkg.agentsJson ?? '', updatedAt: build.now }).where(eq(projects.id, build.projectId)));
}

export async function applyChanges(input: ApplyInput): Promise<ApplyOutcome> {
  const { db, view, files, session } = input;
  const baseline = view.baseline;
  const warnings = revisionWarnings(baseline, view, files, session, input.revisionBase);
  const scopes = await scopeChanges(db, view, files);
  const changes = [...scopes.values()];
  const now = nowIso();
  const bookkeeping: Statement[] = [
    input.changeSetJson === null
      ? sql`UPDATE ai_change_sets SET status = 'applied', validation_result_json = ${input.validationJson}, updated_at = ${now}
          WHERE id = ${input.changeSetId}`
      : sql`INSERT INTO ai_change_sets (id, session_id, project_id, suggestion_version, change_set_json, content_hash,
          validation_result_json, status, created_by, created_at, updated_at)
        VALUES (${input.changeSetId}, ${session.sessionId}, ${session.projectId}, ${input.version}, ${input.changeSetJson},
          ${input.contentHash}, ${input.validationJson}, 'applied', ${input.actor.userId}, ${now}, ${now})
        ON CONFLICT(id) DO UPDATE SET status = 'applied', validation_result_json = excluded.validation_result_json,
          updated_at = excluded.updated_at`,
    db.update(aiSessions).set({ updatedAt: now }).where(eq(aiSessions.id, session.sessionId)),
    db.insert(aiAuditEvents).values({
      id: newId('aud'),
      projectId: session.projectId,
      sessionId: session.sessionId,
      userId: input.actor.userId,
      eventType: 'ai.apply.succeeded',
      payloadJson: JSON.stringify({
        changeSetId: input.changeSetId,
        version: input.version,
        contentHash: input.contentHash,
        files,
        warnings: warnings.map((w) => ({ field: w.field, provided: w.provided, current: w.current })),
      }),
      createdAt: now,
    }),
  ];
  changes[changes.length - 1]!.statements.push(...bookkeeping);
  const result = await commitChanges(
    db,
    { projectId: session.projectId, actorId: input.actor.userId, sessionId: session.sessionId, changeSetId: input.changeSetId },
    changes,
  );

  const after = { ...baseline.revisions.workflows };
  let agentsRevision = baseline.revisions.agents;
  let assetsRevision = baseline.revisions.assets;
  changes.forEach((change, i) => {
    const revision = result.revisions[i]!;
    if (change.scope.kind === 'workflow') after[change.scope.workflowId] = change.expectedRevision === 0 ? 1 : revision;
    else if (change.scope.kind === 'agents') agentsRevision = revision;
    else assetsRevision = revision;
  });
  const workflowId = primaryWorkflow(session, files);
  const written = changes.flatMap((c) => (c.scope.kind === 'workflow' ? [c.scope.workflowId] : []));
  const newRevision: RevisionSet = {
    workflowRevision: workflowId ? (after[workflowId] ?? null) : null,
    agentsRevision,
    assetsRevision,
  };
  if (written.length > 1) newRevision.workflowRevisions = Object.fromEntries(written.map((id) => [id, after[id]!]));
  return { newRevision, warnings, writeId: result.writeId };
}
