/**
 * The stored package a session reads under its overlay, with the revision of every scope and the
 * project's review rule. Revisions are read BEFORE the contents: if a write lands in between, the
 * apply batch's revision guard sees the older revision and refuses, so history never records a
 * stale "content before".
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../../../worker/db/client.ts';
import { projects, workflows } from '../../../worker/db/schema.ts';
import { ApiError } from '../../../shared/api-error.ts';
import { loadStoredPackage } from '../../../worker/package-io/stored-package.ts';
import { parseDomainProfile, parseProjectSettings } from '../../../worker/store/projects.ts';
import type { DomainProfile } from '../../../shared/api/projects.ts';
import type { Baseline, BaselineRevisions } from '../../../shared/ai/overlay.ts';

export interface ProjectContext {
  baseline: Baseline;
  domainProfile: DomainProfile;
  /** Approvals an apply needs from people other than the session's creator (project setting). */
  requiredApprovals: number;
}

export async function loadRevisions(db: Db, projectId: string): Promise<BaselineRevisions & { settingsJson: string; domainProfileJson: string }> {
  const [project, workflowRows] = await db.batch([
    db
      .select({
        agents: projects.agentsRevision,
        assets: projects.assetsRevision,
        settingsJson: projects.settingsJson,
        domainProfileJson: projects.domainProfileJson,
      })
      .from(projects)
      .where(eq(projects.id, projectId)),
    db.select({ id: workflows.id, revision: workflows.revision }).from(workflows).where(eq(workflows.projectId, projectId)),
  ]);
  const row = project[0];
  if (!row) throw new ApiError('PROJECT_NOT_FOUND');
  return { ...row, workflows: Object.fromEntries(workflowRows.map((w) => [w.id, w.revision])) };
}

export async function loadProjectContext(db: Db, projectId: string): Promise<ProjectContext> {
  const { settingsJson, domainProfileJson, ...revisions } = await loadRevisions(db, projectId);
  const { pkg } = await loadStoredPackage(db, projectId);
  return {
    baseline: { projectId, pkg, revisions },
    domainProfile: parseDomainProfile(domainProfileJson),
    requiredApprovals: parseProjectSettings(settingsJson).requiredApprovals,
  };
}
