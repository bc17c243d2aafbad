/** /api/projects: list mine, create, read, update, delete, domain profile. */
import { Hono } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { jsonBody } from '../http/validate.ts';
import { ok } from '../http/respond.ts';
import { projectAccess, requireRole } from '../middleware/project-access.ts';
import { CreateProjectInput, DomainProfile, UpdateProjectInput } from '../../shared/api/projects.ts';
import { createProject, deleteProject, getProject, listProjects, updateProject } from '../store/projects.ts';
import { ApiError } from '../../shared/api-error.ts';
import { importPackage } from '../package-io/import.ts';
import { exportPackage } from '../package-io/export.ts';
import { IMPORT_LIMITS } from '../package-io/limits.ts';
import { validateStoredPackage } from '../package-io/validate-stored.ts';

export const projectRoutes = new Hono<AppEnv>()
  .get('/', async (c) => ok(c, { projects: await listProjects(c.var.db, c.var.user.id) }))
  .post('/', jsonBody(CreateProjectInput), async (c) => {
    const project = await createProject(c.var.db, c.var.user.id, c.req.valid('json'));
    return ok(c, { project }, 201);
  })
  .post('/import', async (c) => {
    // Refuse oversize uploads before the multipart body is read into memory.
    if (Number(c.req.header('content-length') ?? '0') > IMPORT_LIMITS.maxZipBytes + 64 * 1024) {
      throw new ApiError('PKG_TOO_LARGE', { message: `The package is larger than ${IMPORT_LIMITS.maxZipBytes / 1024 / 1024} MB.` });
    }
    if (!(c.req.header('content-type') ?? '').startsWith('multipart/form-data')) {
      throw new ApiError('PKG_INVALID_FORMAT', {
        message: 'Upload the package as a file (multipart/form-data, field "file").',
        status: 415,
      });
    }
    const form = await c.req.parseBody();
    const file = form.file;
    if (!(file instanceof File)) {
      throw new ApiError('PKG_INVALID_FORMAT', { message: 'Choose a .bmad file to import.', hints: ['Send it in the form field "file".'] });
    }
    const name = typeof form.name === 'string' ? form.name : undefined;
    const result = await importPackage(c.var.db, c.var.user.id, new Uint8Array(await file.arrayBuffer()), name);
    return ok(c, result, 201);
  })
  .get('/:projectId/validation', projectAccess(), async (c) =>
    ok(c, { report: await validateStoredPackage(c.var.db, c.var.projectId) }),
  )
  .get('/:projectId/export', projectAccess(), async (c) => {
    const { zip, fileName, warnings } = await exportPackage(c.var.db, c.var.projectId);
    return c.body(zip as Uint8Array<ArrayBuffer>, 200, {
      'content-type': 'application/zip',
      'content-disposition': `attachment; filename="${fileName}"`,
      'x-bmad-warnings': String(warnings.length),
    });
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
