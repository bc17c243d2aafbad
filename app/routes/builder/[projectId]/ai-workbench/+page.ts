// The Workbench's words are not in the catalogue every page loads: added here, before anything renders.
import '../../../../lib/i18n/workbench-words.ts';
import type { PageLoad } from './$types';
import { createApi } from '../../../../lib/api.ts';
import { parseWorkbenchQuery } from '../../../../lib/ai-target.ts';

export const load: PageLoad = async ({ params, url, fetch }) => {
  const api = createApi(fetch);
  const query = parseWorkbenchQuery(url.searchParams);
  // From the sessions page: one given session, read-only when it is past.
  const sessionId = url.searchParams.get('session')?.trim() || undefined;
  const readOnly = sessionId !== undefined && url.searchParams.get('readonly') === '1';
  const [project, workflows] = await Promise.all([api.projects.get(params.projectId), api.workflows.list(params.projectId)]);
  return { project, workflows, query, sessionId, readOnly };
};
