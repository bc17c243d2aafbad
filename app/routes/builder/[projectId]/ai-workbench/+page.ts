import type { PageLoad } from './$types';
import { createApi } from '../../../../lib/api.ts';
import { parseWorkbenchQuery } from '../../../../lib/ai-target.ts';

export const load: PageLoad = async ({ params, url, fetch }) => {
  const api = createApi(fetch);
  const query = parseWorkbenchQuery(url.searchParams);
  const [project, workflows] = await Promise.all([api.projects.get(params.projectId), api.workflows.list(params.projectId)]);
  return { project, workflows, query };
};
