import type { PageLoad } from './$types';
import { createApi } from '../../lib/api.ts';

export const load: PageLoad = async ({ fetch, depends }) => {
  depends('app:projects');
  return { projects: await createApi(fetch).projects.list() };
};
