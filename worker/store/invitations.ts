/**
 * Project invitations (the `project_invitations` table): the one way someone new joins a project.
 * Inviting never looks at whether an account uses the email, so the answer tells the owner nothing
 * of who has one; only that person, signed in with that email, accepts before the expiry.
 */
import { and, desc, eq, gt, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import type { Db } from '../db/client.ts';
import { projectInvitations, projects, users } from '../db/schema.ts';
import { ApiError } from '../../shared/api-error.ts';
import { newId, nowIso } from '../../shared/ids.ts';
import type { Role } from '../../shared/api/common.ts';
import { INVITATION_TTL_DAYS, type InvitationView, type MyInvitationView } from '../../shared/api/invitations.ts';
import { isUniqueViolation } from '../../shared/errors-report.ts';
import { runBatch } from './commit.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const inviter = alias(users, 'inviter');

/**
 * Invite `email` in `role`, or renew its pending invitation (new role, new expiry). One statement,
 * the same for an email with an account and one without: the only thing it checks is whether a
 * member of this project already uses the email (the owner sees the members and their emails).
 */
export async function inviteMember(db: Db, projectId: string, by: { id: string; name: string }, input: { email: string; role: Role }): Promise<InvitationView> {
  const now = Date.now();
  const createdAt = new Date(now).toISOString();
  const expiresAt = new Date(now + INVITATION_TTL_DAYS * DAY_MS).toISOString();
  const [row] = await db.all<Omit<InvitationView, 'invitedByName'>>(sql`
    INSERT INTO project_invitations (id, project_id, email, role, invited_by, created_at, expires_at)
    SELECT ${newId('inv')}, ${projectId}, ${input.email}, ${input.role}, ${by.id}, ${createdAt}, ${expiresAt}
    WHERE NOT EXISTS (
      SELECT 1 FROM project_members m JOIN users u ON u.id = m.user_id WHERE m.project_id = ${projectId} AND u.email = ${input.email}
    )
    ON CONFLICT (project_id, email) DO UPDATE SET
      role = excluded.role, invited_by = excluded.invited_by, created_at = excluded.created_at, expires_at = excluded.expires_at
    RETURNING id, email, role, created_at AS createdAt, expires_at AS expiresAt`);
  if (!row) throw new ApiError('MEMBER_EXISTS', { hints: ['A member of the project already uses this email: change their role in the members list instead.'] });
  return { ...row, invitedByName: by.name };
}

/** A project's pending invitations, newest first; expired ones too (the owner renews or revokes them). */
export async function listInvitations(db: Db, projectId: string): Promise<InvitationView[]> {
  return db
    .select({
      id: projectInvitations.id,
      email: projectInvitations.email,
      role: projectInvitations.role,
      invitedByName: inviter.name,
      createdAt: projectInvitations.createdAt,
      expiresAt: projectInvitations.expiresAt,
    })
    .from(projectInvitations)
    .leftJoin(inviter, eq(inviter.id, projectInvitations.invitedBy))
    .where(eq(projectInvitations.projectId, projectId))
    .orderBy(desc(projectInvitations.createdAt), projectInvitations.id);
}

/** An owner withdraws one; an id of another project is "not found". */
export async function revokeInvitation(db: Db, projectId: string, invitationId: string): Promise<void> {
  const result = await db
    .delete(projectInvitations)
    .where(and(eq(projectInvitations.id, invitationId), eq(projectInvitations.projectId, projectId)))
    .run();
  if (result.meta.changes === 0) throw new ApiError('INVITATION_NOT_FOUND');
}

/** The caller's own unexpired invitations (matched on their account's email), newest first. */
export async function myInvitations(db: Db, email: string): Promise<MyInvitationView[]> {
  return db
    .select({
      id: projectInvitations.id,
      projectId: projectInvitations.projectId,
      projectName: projects.name,
      role: projectInvitations.role,
      invitedByName: inviter.name,
      createdAt: projectInvitations.createdAt,
      expiresAt: projectInvitations.expiresAt,
    })
    .from(projectInvitations)
    .innerJoin(projects, eq(projects.id, projectInvitations.projectId))
    .leftJoin(inviter, eq(inviter.id, projectInvitations.invitedBy))
    .where(and(eq(projectInvitations.email, email), gt(projectInvitations.expiresAt, nowIso())))
    .orderBy(desc(projectInvitations.createdAt), projectInvitations.id);
}

/** Why an invitation addressed to `email` could not be used: expired, or not there (not theirs is "not there"). */
async function refusal(db: Db, invitationId: string, email: string): Promise<ApiError> {
  const row = await db
    .select({ expiresAt: projectInvitations.expiresAt })
    .from(projectInvitations)
    .where(and(eq(projectInvitations.id, invitationId), eq(projectInvitations.email, email)))
    .get();
  if (row) return new ApiError('INVITATION_EXPIRED', { hints: ['Ask an owner of the project to invite you again.'] });
  return new ApiError('INVITATION_NOT_FOUND');
}

/**
 * Accept: in one batch the member row is made from the invitation and the invitation deleted, both
 * only while it is addressed to this account's email and unexpired. Nothing is written otherwise.
 */
export async function acceptInvitation(db: Db, user: { id: string; email: string }, invitationId: string): Promise<{ projectId: string; role: Role }> {
  const usable = sql`id = ${invitationId} AND email = ${user.email} AND expires_at > ${nowIso()}`;
  let results: D1Result[];
  try {
    results = await runBatch(db, [
      sql`INSERT INTO project_members (project_id, user_id, role)
          SELECT project_id, ${user.id}, role FROM project_invitations WHERE ${usable}
          RETURNING project_id AS projectId, role`,
      sql`DELETE FROM project_invitations WHERE ${usable}`,
    ]);
  } catch (error) {
    // Already a member (the batch rolled back, the invitation stays for them to decline).
    if (isUniqueViolation(error, 'project_members.user_id')) throw new ApiError('MEMBER_EXISTS', { message: 'You are already a member of this project.' });
    throw error;
  }
  const [joined] = (results[0]?.results ?? []) as Array<{ projectId: string; role: Role }>;
  if (!joined) throw await refusal(db, invitationId, user.email);
  return joined;
}

/** Decline (expired or not): the invitation is deleted; only its addressee can. */
export async function declineInvitation(db: Db, email: string, invitationId: string): Promise<void> {
  const result = await db
    .delete(projectInvitations)
    .where(and(eq(projectInvitations.id, invitationId), eq(projectInvitations.email, email)))
    .run();
  if (result.meta.changes === 0) throw new ApiError('INVITATION_NOT_FOUND');
}
