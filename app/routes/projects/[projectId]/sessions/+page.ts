// The Workbench's words are not in the catalogue every page loads: added here, before anything renders.
import '../../../../lib/i18n/workbench-words.ts';
import type { PageLoad } from './$types';
import { createApi } from '../../../../lib/api.ts';
import { parseSessionFilters, sessionFiltersSearch } from '../../../../lib/workbench/lifecycle.ts';
import { createSessionsApi } from '../../../../lib/workbench/sessions-api.ts';

export const load: PageLoad = async ({ params, url, fetch }) => {
  const api = createApi(fetch);
  const filters = parseSessionFilters(url.searchParams);
  const [project, members, sessions] = await Promise.all([
    api.projects.get(params.projectId),
    api.members.list(params.projectId),
    createSessionsApi(fetch).history(params.projectId, sessionFiltersSearch(filters)),
  ]);
  return { project, members, sessions, filters };
};
