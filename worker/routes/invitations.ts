/**
 * /api/users/me/invitations: the caller's own pending project invitations (matched on their
 * account's email, so there is no user id or email in the path), and accepting or declining one.
 * Accepting makes them a member in the invited role and tells the project's live sessions, as any
 * membership change does, before the answer.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { ok } from '../http/respond.ts';
import { param } from '../http/context.ts';
import { requireUser } from '../middleware/require-user.ts';
import { acceptInvitation, declineInvitation, myInvitations } from '../store/invitations.ts';
import { getProject } from '../store/projects.ts';
import { tellProject } from '../live/project-channel.ts';

export const invitationRoutes = new Hono<AppEnv>()
  .use(requireUser())
  .get('/', async (c) => ok(c, { invitations: await myInvitations(c.var.db, c.var.user.email) }))
  .post('/:invitationId/accept', async (c) => {
    const { projectId, role } = await acceptInvitation(c.var.db, c.var.user, param(c, 'invitationId'));
    // `at` is taken after the D1 write, so it is newer than any role an upgrade read before it.
    await tellProject(c.env, c.var.db, projectId, { type: 'membershipChanged', userId: c.var.user.id, role, at: Date.now() });
    return ok(c, { project: await getProject(c.var.db, projectId, role) });
  })
  .post('/:invitationId/decline', async (c) => {
    await declineInvitation(c.var.db, c.var.user.email, param(c, 'invitationId'));
    return ok(c, { declined: true });
  });
