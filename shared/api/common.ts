/** Small zod building blocks shared by the REST contracts. */
import * as z from 'zod';

/** Ids that appear in a `.bmad` package (workflow ids, node ids, agent ids): a letter or digit, then letters, digits, `._:-`. */
export const PackageId = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, 'Use letters, digits and . _ : - (starting with a letter or digit).');

export const Role = z.enum(['owner', 'editor', 'viewer']);
export type Role = z.infer<typeof Role>;

/** Roles ordered by what they may do; `atLeast(role, 'editor')` reads as a sentence. */
const ROLE_RANK: Record<Role, number> = { viewer: 1, editor: 2, owner: 3 };
export function atLeast(role: Role, needed: Role): boolean {
  return ROLE_RANK[role] >= ROLE_RANK[needed];
}

/** A revision a client read; a write naming a stale one gets 409 REVISION_CONFLICT. */
export const BaseRevision = z.number().int().min(0);

export const IsoDate = z.string();
