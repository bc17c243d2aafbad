/**
 * Typed client for /api/users/me/invitations (the caller's own pending project invitations,
 * accepting and declining one), on lib/api.ts's transport.
 */
import type { AcceptedInvitation, MyInvitationView } from '../../shared/api/invitations.ts';
import { request, type FetchLike } from './api.ts';

const PATH = '/users/me/invitations';

export function createInvitationsApi(fetchFn: FetchLike = (input, init) => globalThis.fetch(input, init)) {
  return {
    /** Unexpired ones, newest first. */
    list: () => request<{ invitations: MyInvitationView[] }>(fetchFn, 'GET', PATH),
    accept: (invitationId: string) => request<AcceptedInvitation>(fetchFn, 'POST', `${PATH}/${encodeURIComponent(invitationId)}/accept`, { body: {} }),
    decline: (invitationId: string) => request<{ declined: true }>(fetchFn, 'POST', `${PATH}/${encodeURIComponent(invitationId)}/decline`, { body: {} }),
  };
}

export const invitationsApi = createInvitationsApi();
