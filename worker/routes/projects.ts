/** /api/projects: list mine, create, import (with a preview), export, read, update, delete, domain profile. */
import { Hono, type Context } from 'hono';
import * as z from 'zod';
import type { AppEnv } from '../app-env.ts';
import { jsonBody, queryWith } from '../http/validate.ts';
import { ok } from '../http/respond.ts';
import { attachmentDisposition } from '../http/attachment.ts';
import { projectAccess, requireRole } from '../middleware/project-access.ts';
import { CreateProjectInput, DomainProfile, UpdateProjectInput } from '../../shared/api/projects.ts';
import { createProject, deleteProject, getProject, listProjects, updateProject } from '../store/projects.ts';
import { ApiError } from '../../shared/api-error.ts';
import { liveSessionsOf, tellSessions } from '../live/project-channel.ts';
import { importPackage, previewImport } from '../package-io/import.ts';
import { exportPackage } from '../package-io/export.ts';
import { IMPORT_LIMITS } from '../package-io/limits.ts';
import { validateStoredPackage } from '../package-io/validate-stored.ts';
import type { ValidationIssue } from '../../shared/bmad/index.ts';

const ExportQuery = z.strictObject({ layout: z.enum(['bmad', 'bmad-method']).default('bmad') });

/** Encoded so any message survives as a header value; left out (the zip has them all) past 8 KB. */
function warningsHeader(warnings: readonly ValidationIssue[]): Record<string, string> {
  const value = encodeURIComponent(JSON.stringify(warnings.map((w) => ({ code: w.code, path: w.filePath, message: w.message }))));
  return value.length <= 8 * 1024 ? { 'x-bmad-warnings-json': value } : {};
}

/** The uploaded zip of an import or a preview (multipart field "file"), refused early when too large. */
async function uploadedZip(c: Context<AppEnv>): Promise<{ zip: Uint8Array; name: string | undefined }> {
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
  let form: Awaited<ReturnType<typeof c.req.parseBody>>;
  try {
    form = await c.req.parseBody();
  } catch {
    // A body that is not the multipart it says it is (a cut upload, a wrong boundary).
    throw new ApiError('PKG_INVALID_FORMAT', { message: 'The upload could not be read as a file.', hints: ['Choose the file again and retry the upload.'] });
  }
  const file = form.file;
  if (!(file instanceof File)) {
    throw new ApiError('PKG_INVALID_FORMAT', { message: 'Choose a .bmad file or a BMAD-METHOD folder zip to import.', hints: ['Send it in the form field "file".'] });
  }
  return { zip: new Uint8Array(await file.arrayBuffer()), name: typeof form.name === 'string' ? form.name : undefined };
}

export const projectRoutes = new Hono<AppEnv>()
  .get('/', async (c) => ok(c, { projects: await listProjects(c.var.db, c.var.user.id) }))
  .post('/', jsonBody(CreateProjectInput), async (c) => {
    const project = await createProject(c.var.db, c.var.user.id, c.req.valid('json'));
    return ok(c, { project }, 201);
  })
  .post('/import/preview', async (c) => {
    // Derives and validates exactly what the import would write, and the name it would get; writes nothing.
    const { zip, name } = await uploadedZip(c);
    return ok(c, { preview: await previewImport(c.var.db, c.var.user.id, zip, name) });
  })
  .post('/import', async (c) => {
    const { zip, name } = await uploadedZip(c);
    const result = await importPackage(c.var.db, c.var.user.id, zip, name);
    return ok(c, result, 201);
  })
  .get('/:projectId/validation', projectAccess(), async (c) =>
    ok(c, { report: await validateStoredPackage(c.var.db, c.var.projectId) }),
  )
  .get('/:projectId/export', projectAccess(), queryWith(ExportQuery), async (c) => {
    const { zip, fileName, asciiFileName, warnings } = await exportPackage(c.var.db, c.var.projectId, c.req.valid('query').layout);
    return c.body(zip as Uint8Array<ArrayBuffer>, 200, {
      'content-type': 'application/zip',
      'content-disposition': attachmentDisposition(fileName, asciiFileName),
      'x-bmad-warnings': String(warnings.length),
      // The warnings themselves (also in the zip as WARNINGS.md), as long as they fit a header.
      ...warningsHeader(warnings),
    });
  })
  .get('/:projectId', projectAccess(), async (c) => ok(c, { project: await getProject(c.var.db, c.var.projectId, c.var.role) }))
  .patch('/:projectId', projectAccess(), jsonBody(UpdateProjectInput), async (c) => {
    const project = await updateProject(c.var.db, c.var.projectId, c.var.role, c.req.valid('json'));
    return ok(c, { project });
  })
  .delete('/:projectId', projectAccess(), requireRole('owner'), async (c) => {
    // Read before the delete drops their rows: the live sessions are told after it, and close.
    const sessions = await liveSessionsOf(c.var.db, c.var.projectId);
    await deleteProject(c.var.db, c.var.projectId);
    await tellSessions(c.env, sessions, { type: 'projectDeleted' });
    return ok(c, { deleted: true });
  })
  .put('/:projectId/domain-profile', projectAccess(), jsonBody(DomainProfile), async (c) => {
    const project = await updateProject(c.var.db, c.var.projectId, c.var.role, { domainProfile: c.req.valid('json') });
    return ok(c, { project });
  });
