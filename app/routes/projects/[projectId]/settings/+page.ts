import type { PageLoad } from './$types';
import { createApi } from '../../../../lib/api.ts';

export const load: PageLoad = async ({ params, fetch, depends }) => {
  depends('app:project');
  return { project: await createApi(fetch).projects.get(params.projectId) };
};
