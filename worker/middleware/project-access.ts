/**
 * The one role check for every `/api/projects/:projectId/*` route. A non-member gets 404
 * (no existence oracle: the answer is the same as for a project that does not exist); a
 * member whose role is too low gets 403. Sets `projectId` and `role`.
 */
import type { MiddlewareHandler } from 'hono';
import { and, eq } from 'drizzle-orm';
import type { AppEnv } from '../app-env.ts';
import { ApiError } from '../../shared/api-error.ts';
import { projectMembers } from '../db/schema.ts';
import { atLeast, type Role } from '../../shared/api/common.ts';

const READ_METHODS = new Set(['GET', 'HEAD']);

export interface ProjectAccessOptions {
  /** Role needed for reads (GET/HEAD). */
  read?: Role;
  /** Role needed for everything else. */
  write?: Role;
}

export async function memberRole(db: AppEnv['Variables']['db'], projectId: string, userId: string) {
  const row = await db
    .select({ role: projectMembers.role })
    .from(projectMembers)
    .where(and(eq(projectMembers.projectId, projectId), eq(projectMembers.userId, userId)))
    .get();
  return row?.role;
}

export function projectAccess({ read = 'viewer', write = 'editor' }: ProjectAccessOptions = {}): MiddlewareHandler<AppEnv> {
  return async function projectAccessGuard(c, next) {
    const projectId = c.req.param('projectId');
    if (!projectId) throw new ApiError('PROJECT_NOT_FOUND');
    // requireUser read the role with the cookie when the URL named this project; asked again otherwise.
    const access = c.var.access;
    const role = access?.projectId === projectId ? access.role : await memberRole(c.var.primaryDb, projectId, c.var.user.id);
    if (!role) throw new ApiError('PROJECT_NOT_FOUND');
    const needed = READ_METHODS.has(c.req.method) ? read : write;
    if (!atLeast(role, needed)) {
      throw new ApiError('FORBIDDEN', {
        message: `This needs the ${needed} role on the project; you are a ${role}.`,
        hints: ['Ask a project owner to change your role.'],
      });
    }
    c.set('projectId', projectId);
    c.set('role', role);
    await next();
  };
}

/** For a single route that needs more than its router's default (e.g. owner-only actions). */
export function requireRole(needed: Role): MiddlewareHandler<AppEnv> {
  return async function requireRoleGuard(c, next) {
    if (!atLeast(c.var.role, needed)) {
      throw new ApiError('FORBIDDEN', {
        message: `This needs the ${needed} role on the project; you are a ${c.var.role}.`,
        hints: ['Ask a project owner to do this, or to change your role.'],
      });
    }
    await next();
  };
}
