/**
 * Contracts of project invitations. An owner invites by email (POST /api/projects/:projectId/members,
 * `AddMemberInput`) and sees the pending ones beside the members; the invited person lists theirs
 * (GET /api/users/me/invitations) and accepts or declines one (POST …/:invitationId/accept|decline).
 * What an owner gets back is the same whether or not an account uses the email.
 */
import type { Role } from './common.ts';
import type { ProjectView } from './projects.ts';

/** How long an invitation can be accepted; inviting the same email again renews it. */
export const INVITATION_TTL_DAYS = 7;

/** A pending invitation as the project's owners see it. */
export interface InvitationView {
  id: string;
  /** The email the owner typed (lower case). */
  email: string;
  role: Role;
  /** Who invited, by name; null once that account is gone. */
  invitedByName: string | null;
  createdAt: string;
  expiresAt: string;
}

/** An invitation as the invited person sees it (only unexpired ones are listed). */
export interface MyInvitationView {
  id: string;
  projectId: string;
  projectName: string;
  role: Role;
  invitedByName: string | null;
  createdAt: string;
  expiresAt: string;
}

/** POST …/:invitationId/accept: the project, seen with the role just taken. */
export interface AcceptedInvitation {
  project: ProjectView;
}
