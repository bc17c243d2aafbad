import type { PageLoad } from './$types';
import { createApi } from '../../../../lib/api.ts';

export const load: PageLoad = async ({ params, url, fetch, depends }) => {
  depends('app:assets');
  const api = createApi(fetch);
  const path = url.searchParams.get('path');
  const [project, assets, selected] = await Promise.all([
    api.projects.get(params.projectId),
    api.assets.list(params.projectId),
    path ? api.assets.get(params.projectId, path) : Promise.resolve(null),
  ]);
  return { project, assets, path, selected };
};
