import type { PageLoad } from './$types';
import { createApi } from '../../../../../lib/api.ts';

export const load: PageLoad = async ({ params, fetch, depends }) => {
  depends('app:workflow');
  const api = createApi(fetch);
  const [project, workflow, agents, assets] = await Promise.all([
    api.projects.get(params.projectId),
    api.workflows.get(params.projectId, params.workflowId),
    api.agents.list(params.projectId),
    api.assets.list(params.projectId),
  ]);
  return { project, workflow, agents, assets };
};
