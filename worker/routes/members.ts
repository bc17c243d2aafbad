/**
 * /api/projects/:projectId/members: everyone may list; owners invite (by email), change, remove and
 * withdraw invitations; anyone may leave. Someone invited becomes a member only when they accept
 * (routes/invitations.ts). Every membership change reaches the project's live session sockets
 * before the answer (project channel).
 */
import { Hono } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { jsonBody } from '../http/validate.ts';
import { ok } from '../http/respond.ts';
import { param } from '../http/context.ts';
import { ApiError } from '../../shared/api-error.ts';
import { projectAccess, requireRole } from '../middleware/project-access.ts';
import { atLeast } from '../../shared/api/common.ts';
import { AddMemberInput, UpdateMemberInput } from '../../shared/api/projects.ts';
import { listMembers, removeMember, updateMemberRole } from '../store/projects.ts';
import { inviteMember, listInvitations, revokeInvitation } from '../store/invitations.ts';
import { tellProject } from '../live/project-channel.ts';
import { MEMBER_ADD_POLICY, takeAttempt, throttledError } from '../auth/throttle.ts';

export const memberRoutes = new Hono<AppEnv>()
  // Viewers pass the router's gate so they can leave; each write route checks its own role.
  .use(projectAccess({ write: 'viewer' }))
  // Pending invitations are the owners' to manage; others see the members only.
  .get('/', async (c) => {
    const [members, invitations] = await Promise.all([
      listMembers(c.var.db, c.var.projectId),
      atLeast(c.var.role, 'owner') ? listInvitations(c.var.db, c.var.projectId) : [],
    ]);
    return ok(c, { members, invitations });
  })
  // The same answer whether or not an account uses the email: an invitation, nobody added yet.
  .post('/', requireRole('owner'), jsonBody(AddMemberInput), async (c) => {
    // Bounds how many invitations one person sends in a short time.
    const decision = await takeAttempt(c.var.db, `members:add:${c.var.user.id}`, MEMBER_ADD_POLICY);
    if (decision.type === 'throttled') throw throttledError('invitations sent in a short time', decision.retryAfterSeconds);
    const invitation = await inviteMember(c.var.db, c.var.projectId, c.var.user, c.req.valid('json'));
    return ok(c, { invitation }, 201);
  })
  .delete('/invitations/:invitationId', requireRole('owner'), async (c) => {
    await revokeInvitation(c.var.db, c.var.projectId, param(c, 'invitationId'));
    return ok(c, { deleted: true });
  })
  .patch('/:userId', requireRole('owner'), jsonBody(UpdateMemberInput), async (c) => {
    const member = await updateMemberRole(c.var.db, c.var.projectId, param(c, 'userId'), c.req.valid('json').role);
    await tellProject(c.env, c.var.db, c.var.projectId, { type: 'membershipChanged', userId: member.userId, role: member.role, at: Date.now() });
    return ok(c, { member });
  })
  .delete('/:userId', async (c) => {
    const userId = param(c, 'userId');
    // Leaving is always allowed (if an owner remains); removing someone else needs the owner role.
    if (userId !== c.var.user.id && !atLeast(c.var.role, 'owner')) {
      throw new ApiError('FORBIDDEN', { message: 'Only an owner can remove other members.' });
    }
    await removeMember(c.var.db, c.var.projectId, userId);
    await tellProject(c.env, c.var.db, c.var.projectId, { type: 'membershipChanged', userId, role: null, at: Date.now() });
    return ok(c, { deleted: true });
  });
