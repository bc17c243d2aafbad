/**
 * Project roles and their order, without zod: the Workbench's first load asks `atLeast` and must
 * not load the schema library for it (`common.ts` builds the `Role` schema from `ROLES`).
 */
export const ROLES = ['owner', 'editor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** Roles ordered by what they may do; `atLeast(role, 'editor')` reads as a sentence. */
const ROLE_RANK: Record<Role, number> = { viewer: 1, editor: 2, owner: 3 };
export function atLeast(role: Role, needed: Role): boolean {
  return ROLE_RANK[role] >= ROLE_RANK[needed];
}
