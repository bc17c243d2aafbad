import type { PageLoad } from './$types';
import { createApi } from '../../../lib/api.ts';

export const load: PageLoad = async ({ params, fetch, depends }) => {
  depends('app:project');
  const api = createApi(fetch);
  const [project, workflows, agents, assets, validation] = await Promise.all([
    api.projects.get(params.projectId),
    api.workflows.list(params.projectId),
    api.agents.list(params.projectId),
    api.assets.list(params.projectId),
    api.projects.validation(params.projectId),
  ]);
  return { project, workflows, agents, assets, validation };
};
