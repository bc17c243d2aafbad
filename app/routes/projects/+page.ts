import type { PageLoad } from './$types';
import { createApi } from '../../lib/api.ts';
import { createInvitationsApi } from '../../lib/invitations-api.ts';

export const load: PageLoad = async ({ fetch, depends }) => {
  depends('app:projects');
  const [projects, invitations] = await Promise.all([createApi(fetch).projects.list(), createInvitationsApi(fetch).list()]);
  return { projects, invitations };
};
