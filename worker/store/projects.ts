/** Projects (packages) and their members (someone new joins through an invitation: invitations.ts). */
import { and, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { projectMembers, projects, users, workflows } from '../db/schema.ts';
import { ApiError } from '../../shared/api-error.ts';
import { newId, nowIso } from '../../shared/ids.ts';
import { EMPTY_AGENTS_JSON } from './templates.ts';
import { DomainProfile, ProjectSettings, type MemberView, type ProjectView } from '../../shared/api/projects.ts';
import type { Role } from '../../shared/api/common.ts';
import { parseContentLanguage, type ContentLanguage } from '../../shared/i18n/content-language.ts';
import { sortByName } from '../../shared/text/collate.ts';

type ProjectRow = typeof projects.$inferSelect;

export function parseDomainProfile(text: string): DomainProfile {
  try {
    const parsed = DomainProfile.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
  } catch {
    // fall through to the empty profile
  }
  return DomainProfile.parse({});
}

export function parseProjectSettings(text: string): ProjectSettings {
  try {
    const parsed = ProjectSettings.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
  } catch {
    // fall through to the defaults
  }
  return ProjectSettings.parse({});
}

function toView(row: ProjectRow, role: Role, workflowCount: number): ProjectView {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    version: row.version,
    role,
    domainProfile: parseDomainProfile(row.domainProfileJson),
    settings: parseProjectSettings(row.settingsJson),
    contentLanguage: parseContentLanguage(row.contentLanguage),
    agentsRevision: row.agentsRevision,
    assetsRevision: row.assetsRevision,
    workflowCount,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

// The outer column is written with its table name: drizzle drops it in single-table selects, and a
// bare "id" would bind inside the subquery (see listWorkflows in workflows.ts).
const workflowCount = sql<number>`(SELECT count(*) FROM workflows w WHERE w.project_id = "projects"."id")`;

/** The person's projects by name, Chinese names by pinyin (shared/text/collate.ts; SQLite would sort by code point). */
export async function listProjects(db: Db, userId: string): Promise<ProjectView[]> {
  const rows = await db
    .select({ project: projects, role: projectMembers.role, workflowCount })
    .from(projectMembers)
    .innerJoin(projects, eq(projects.id, projectMembers.projectId))
    .where(eq(projectMembers.userId, userId));
  return sortByName(rows, (r) => r.project.name, (r) => r.project.id).map((r) => toView(r.project, r.role, r.workflowCount));
}

export async function getProject(db: Db, projectId: string, role: Role): Promise<ProjectView> {
  const row = await db.select().from(projects).where(eq(projects.id, projectId)).get();
  if (!row) throw new ApiError('PROJECT_NOT_FOUND');
  const [{ total } = { total: 0 }] = await db
    .select({ total: count() })
    .from(workflows)
    .where(eq(workflows.projectId, projectId));
  return toView(row, role, total);
}

export async function createProject(
  db: Db,
  ownerId: string,
  input: { name: string; description?: string | undefined; agentsJson?: string; version?: string },
): Promise<ProjectView> {
  const id = newId('prj');
  await db.batch([
    db.insert(projects).values({
      id,
      name: input.name,
      description: input.description ?? '',
      version: input.version ?? '1.0.0',
      agentsJson: input.agentsJson ?? EMPTY_AGENTS_JSON,
      createdBy: ownerId,
    }),
    db.insert(projectMembers).values({ projectId: id, userId: ownerId, role: 'owner' }),
  ]);
  return getProject(db, id, 'owner');
}

export async function updateProject(
  db: Db,
  projectId: string,
  role: Role,
  input: {
    name?: string | undefined;
    description?: string | undefined;
    version?: string | undefined;
    domainProfile?: DomainProfile;
    requiredApprovals?: number | undefined;
    contentLanguage?: ContentLanguage | undefined;
  },
): Promise<ProjectView> {
  const set: Partial<typeof projects.$inferInsert> = { updatedAt: nowIso() };
  if (input.requiredApprovals !== undefined) {
    if (role !== 'owner') {
      throw new ApiError('FORBIDDEN', {
        message: 'Only a project owner can change how many approvals AI changes need.',
        hints: ['Ask a project owner to change this rule.'],
      });
    }
    const row = await db.select({ settingsJson: projects.settingsJson }).from(projects).where(eq(projects.id, projectId)).get();
    set.settingsJson = JSON.stringify({ ...parseProjectSettings(row?.settingsJson ?? '{}'), requiredApprovals: input.requiredApprovals });
  }
  if (input.name !== undefined) set.name = input.name;
  if (input.description !== undefined) set.description = input.description;
  if (input.version !== undefined) set.version = input.version;
  if (input.contentLanguage !== undefined) set.contentLanguage = input.contentLanguage;
  if (input.domainProfile !== undefined) set.domainProfileJson = JSON.stringify(input.domainProfile);
  await db.update(projects).set(set).where(eq(projects.id, projectId));
  return getProject(db, projectId, role);
}

export async function deleteProject(db: Db, projectId: string): Promise<void> {
  await db.delete(projects).where(eq(projects.id, projectId));
}

// Members

const memberColumns = {
  userId: projectMembers.userId,
  email: users.email,
  name: users.name,
  role: projectMembers.role,
  addedAt: projectMembers.createdAt,
};

/** The members by name, as the projects list sorts (pinyin for Chinese names). */
export async function listMembers(db: Db, projectId: string): Promise<MemberView[]> {
  const rows = await db
    .select(memberColumns)
    .from(projectMembers)
    .innerJoin(users, eq(users.id, projectMembers.userId))
    .where(eq(projectMembers.projectId, projectId));
  return sortByName(rows, (r) => r.name, (r) => r.email);
}

async function getMember(db: Db, projectId: string, userId: string): Promise<MemberView> {
  const row = await db
    .select(memberColumns)
    .from(projectMembers)
    .innerJoin(users, eq(users.id, projectMembers.userId))
    .where(and(eq(projectMembers.projectId, projectId), eq(projectMembers.userId, userId)))
    .get();
  if (!row) throw new ApiError('MEMBER_NOT_FOUND');
  return row;
}

/**
 * Changing or removing an owner must leave one. The check runs inside the statement (a
 * conditional UPDATE/DELETE) so two owners demoting each other at once cannot both succeed.
 */
const otherOwnersExist = (projectId: string, userId: string) =>
  sql`EXISTS (SELECT 1 FROM project_members o WHERE o.project_id = ${projectId} AND o.role = 'owner' AND o.user_id <> ${userId})`;

export async function updateMemberRole(db: Db, projectId: string, userId: string, role: Role): Promise<MemberView> {
  const current = await getMember(db, projectId, userId);
  if (current.role === role) return current;
  const result = await db
    .update(projectMembers)
    .set({ role })
    .where(
      and(
        eq(projectMembers.projectId, projectId),
        eq(projectMembers.userId, userId),
        current.role === 'owner' ? otherOwnersExist(projectId, userId) : sql`1`,
      ),
    )
    .run();
  if (result.meta.changes === 0) throw new ApiError('LAST_OWNER', { hints: ['Make someone else an owner first.'] });
  return getMember(db, projectId, userId);
}

export async function removeMember(db: Db, projectId: string, userId: string): Promise<void> {
  const current = await getMember(db, projectId, userId);
  const result = await db
    .delete(projectMembers)
    .where(
      and(
        eq(projectMembers.projectId, projectId),
        eq(projectMembers.userId, userId),
        current.role === 'owner' ? otherOwnersExist(projectId, userId) : sql`1`,
      ),
    )
    .run();
  if (result.meta.changes === 0) throw new ApiError('LAST_OWNER', { hints: ['Make someone else an owner first.'] });
}
