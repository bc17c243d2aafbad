/**
 * The stored package a session reads under its overlay, with the revision of every scope and the
 * project's review rule. Revisions are read BEFORE the contents: if a write lands in between, the
 * apply batch's revision guard sees the older revision and refuses, so history never records a
 * stale "content before".
 */
import { parseContentLanguage } from '../../../shared/i18n/content-language.ts';
import { and, eq, type SQL } from 'drizzle-orm';
import type { BatchResponse } from 'drizzle-orm/batch';
import type { Db } from '../../../worker/db/client.ts';
import { projects, workflows } from '../../../worker/db/schema.ts';
import { ApiError } from '../../../shared/api-error.ts';
import { storedPackageFrom, storedPackageQueries, type StoredPackageRows } from '../../../worker/package-io/stored-package.ts';
import { parseDomainProfile, parseProjectSettings } from '../../../worker/store/projects.ts';
import type { BaselineRevisions, ProjectContext } from '../../../shared/ai/overlay.ts';

export type { ProjectContext };

/** The revisions, settings and review rule first, then the package: one batch, one round trip (a batch runs in order, as one transaction). */
export async function loadProjectContext(db: Db, projectId: string): Promise<ProjectContext> {
  return projectContextFrom(projectId, await db.batch(projectContextQueries(db, projectId)));
}

/** The reads of a project context, in batch order (the Worker may send them with who-is-asking: auth/preload.ts). */
export function projectContextQueries(db: Db, projectId: string, guard?: SQL) {
  return [
    db
      .select({
        agents: projects.agentsRevision,
        assets: projects.assetsRevision,
        settingsJson: projects.settingsJson,
        domainProfileJson: projects.domainProfileJson,
        contentLanguage: projects.contentLanguage,
      })
      .from(projects)
      .where(and(eq(projects.id, projectId), guard)),
    db.select({ id: workflows.id, revision: workflows.revision }).from(workflows).where(and(eq(workflows.projectId, projectId), guard)),
    ...storedPackageQueries(db, projectId, guard),
  ] as const;
}

/** The rows of projectContextQueries, in their order. */
export type ProjectContextRows = BatchResponse<ReturnType<typeof projectContextQueries>>;

/** The context from the rows of projectContextQueries. */
export function projectContextFrom(projectId: string, rows: ProjectContextRows): ProjectContext {
  const [project, workflowRows, ...packageRows] = rows;
  const row = project[0];
  if (!row) throw new ApiError('PROJECT_NOT_FOUND');
  const { settingsJson, domainProfileJson, contentLanguage, ...scopes } = row;
  const revisions: BaselineRevisions = { ...scopes, workflows: Object.fromEntries(workflowRows.map((w) => [w.id, w.revision])) };
  const { pkg } = storedPackageFrom(packageRows as unknown as StoredPackageRows);
  return {
    baseline: { projectId, pkg, revisions },
    domainProfile: parseDomainProfile(domainProfileJson),
    requiredApprovals: parseProjectSettings(settingsJson).requiredApprovals,
    contentLanguage: parseContentLanguage(contentLanguage),
  };
}
