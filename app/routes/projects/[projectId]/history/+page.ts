import type { PageLoad } from './$types';
import { createApi } from '../../../../lib/api.ts';

/** Entries per page ("Load more" fetches the next page with the cursor). */
export const _PAGE_SIZE = 25;

export const load: PageLoad = async ({ params, url, fetch, depends }) => {
  depends('app:history');
  const api = createApi(fetch);
  const objectKey = url.searchParams.get('objectKey')?.trim() || undefined;
  const [project, history] = await Promise.all([
    api.projects.get(params.projectId),
    api.history.list(params.projectId, { objectKey, limit: _PAGE_SIZE }),
  ]);
  return { project, history, objectKey: objectKey ?? null };
};
