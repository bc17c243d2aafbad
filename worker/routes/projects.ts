/** /api/projects: list mine, create, read, update, delete, domain profile. */
import { Hono } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { jsonBody } from '../http/validate.ts';
import { ok } from '../http/respond.ts';
import { projectAccess, requireRole } from '../middleware/project-access.ts';
import { CreateProjectInput, DomainProfile, UpdateProjectInput } from '../../shared/api/projects.ts';
import { createProject, deleteProject, getProject, listProjects, updateProject } from '../store/projects.ts';

export const projectRoutes = new Hono<AppEnv>()
  .get('/', async (c) => ok(c, { projects: await listProjects(c.var.db, c.var.user.id) }))
  .post('/', jsonBody(CreateProjectInput), async (c) => {
    const project = await createProject(c.var.db, c.var.user.id, c.req.valid('json'));
    return ok(c, { project }, 201);
  })
  .get('/:projectId', projectAccess(), async (c) => ok(c, { project: await getProject(c.var.db, c.var.projectId, c.var.role) }))
  .patch('/:projectId', projectAccess(), jsonBody(UpdateProjectInput), async (c) => {
    const project = await updateProject(c.var.db, c.var.projectId, c.var.role, c.req.valid('json'));
    return ok(c, { project });
  })
  .delete('/:projectId', projectAccess(), requireRole('owner'), async (c) => {
    await deleteProject(c.var.db, c.var.projectId);
    return ok(c, { deleted: true });
  })
  .put('/:projectId/domain-profile', projectAccess(), jsonBody(DomainProfile), async (c) => {
    const project = await updateProject(c.var.db, c.var.projectId, c.var.role, { domainProfile: c.req.valid('json') });
    return ok(c, { project });
  });
