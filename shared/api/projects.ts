/** Contracts of /api/projects: projects (packages), their domain profile and members. */
import * as z from 'zod';
import { Role } from './common.ts';
import { Email } from './auth.ts';
import { CONTENT_LANGUAGES, type ContentLanguage } from '../i18n/content-language.ts';

const Text = (max: number) => z.string().trim().max(max);

export const DomainProfile = z.strictObject({
  industryDomain: Text(200).default(''),
  targetUsers: Text(500).default(''),
  painPoints: Text(2000).default(''),
  expectedOutcomes: Text(2000).default(''),
  qualityStyle: Text(500).default(''),
});
export type DomainProfile = z.infer<typeof DomainProfile>;

export const CreateProjectInput = z.strictObject({
  name: Text(100).min(1, 'Enter a project name.'),
  description: Text(2000).optional(),
});
export type CreateProjectInput = z.infer<typeof CreateProjectInput>;

/** Project rules. `requiredApprovals`: approvals an AI change set needs, from people other than the session's creator. */
export const ProjectSettings = z.strictObject({
  requiredApprovals: z.number().int().min(0).max(10).default(0),
});
export type ProjectSettings = z.infer<typeof ProjectSettings>;

export const UpdateProjectInput = z
  .strictObject({
    name: Text(100).min(1, 'Enter a project name.').optional(),
    /** Owners only (the route checks). */
    requiredApprovals: z.number().int().min(0, 'Use a number from 0 to 10.').max(10, 'Use a number from 0 to 10.').optional(),
    description: Text(2000).optional(),
    /** The language the package's text is written in; the AI writes staged content in it. */
    contentLanguage: z.enum(CONTENT_LANGUAGES).optional(),
    version: z
      .string()
      .regex(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/, 'Use a version like 1.0.0.')
      .optional(),
  })
  .refine((v) => Object.keys(v).length > 0, 'Nothing to change.');
export type UpdateProjectInput = z.infer<typeof UpdateProjectInput>;

export interface ProjectView {
  id: string;
  name: string;
  description: string;
  version: string;
  role: Role;
  domainProfile: DomainProfile;
  settings: ProjectSettings;
  contentLanguage: ContentLanguage;
  agentsRevision: number;
  assetsRevision: number;
  workflowCount: number;
  createdAt: string;
  updatedAt: string;
}

/** An invitation by email: the person becomes a member when they accept it (shared/api/invitations.ts). */
export const AddMemberInput = z.strictObject({ email: Email, role: Role });
export type AddMemberInput = z.infer<typeof AddMemberInput>;

export const UpdateMemberInput = z.strictObject({ role: Role });
export type UpdateMemberInput = z.infer<typeof UpdateMemberInput>;

export interface MemberView {
  userId: string;
  email: string;
  name: string;
  role: Role;
  addedAt: string;
}
