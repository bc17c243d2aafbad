import type { PageLoad } from './$types';
import { createApi } from '../../../../lib/api.ts';

export const load: PageLoad = async ({ params, fetch, depends }) => {
  depends('app:members');
  const api = createApi(fetch);
  const [project, members] = await Promise.all([api.projects.get(params.projectId), api.members.list(params.projectId)]);
  return { project, members };
};
