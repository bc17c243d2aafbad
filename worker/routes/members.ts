/**
 * /api/projects/:projectId/members: everyone may list; owners add, change and remove; anyone may
 * leave. Every change reaches the project's live session sockets before the answer (project channel).
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
import { addMember, listMembers, removeMember, updateMemberRole } from '../store/projects.ts';
import { tellProject } from '../live/project-channel.ts';
import { MEMBER_ADD_POLICY, takeAttempt, throttledError } from '../auth/throttle.ts';

export const memberRoutes = new Hono<AppEnv>()
  // Viewers pass the router's gate so they can leave; each write route checks its own role.
  .use(projectAccess({ write: 'viewer' }))
  .get('/', async (c) => ok(c, { members: await listMembers(c.var.db, c.var.projectId) }))
  .post('/', requireRole('owner'), jsonBody(AddMemberInput), async (c) => {
    // Counted before the email is looked up, so adding cannot be used to list who has an account.
    const decision = await takeAttempt(c.var.db, `members:add:${c.var.user.id}`, MEMBER_ADD_POLICY);
    if (decision.type === 'throttled') throw throttledError('members added in a short time', decision.retryAfterSeconds);
    const member = await addMember(c.var.db, c.var.projectId, c.req.valid('json'));
    // `at` is taken after the D1 write, so it is newer than any role an upgrade read before it.
    await tellProject(c.env, c.var.db, c.var.projectId, { type: 'membershipChanged', userId: member.userId, role: member.role, at: Date.now() });
    return ok(c, { member }, 201);
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
