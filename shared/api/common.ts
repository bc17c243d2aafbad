/** Small zod building blocks shared by the REST contracts. */
import * as z from 'zod';
import { PACKAGE_ID_MAX_LENGTH, PACKAGE_ID_PATTERN, PACKAGE_ID_RULE } from './package-id.ts';
import { ROLES } from './roles.ts';

// The plain rules live apart (roles.ts, package-id.ts) for pages that must not load zod.
export { atLeast } from './roles.ts';

/** Ids that appear in a `.bmad` package (workflow ids, node ids, agent ids): a letter or digit, then letters, digits, `._:-`. */
export const PackageId = z.string().min(1).max(PACKAGE_ID_MAX_LENGTH).regex(PACKAGE_ID_PATTERN, PACKAGE_ID_RULE);

export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

/** A revision a client read; a write naming a stale one gets 409 REVISION_CONFLICT. */
export const BaseRevision = z.number().int().min(0);

export const IsoDate = z.string();
