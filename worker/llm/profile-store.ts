/** D1 reads and writes of `user_llm_profiles` (one row per user, created lazily as `disabled`). */
import { and, eq, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { authSessions, userLlmProfiles } from '../db/schema.ts';
import { nowIso } from '../../shared/ids.ts';
import type { CheckedLlmProfile, LlmHealthStatus } from '../../shared/api/llm-profile.ts';
import type { SealedLlmProfile } from '../../shared/llm/types.ts';
import type { SealedApiKey } from './crypto.ts';

export type LlmProfileRow = typeof userLlmProfiles.$inferSelect;

/** What a save does to the stored key: absent in the body keeps it, null clears it, a string replaces it. */
export type ApiKeyChange = { type: 'keep' } | { type: 'clear' } | { type: 'set'; sealed: SealedApiKey; last4: string | null };

export async function findProfileRow(db: Db, userId: string): Promise<LlmProfileRow | undefined> {
  return db.select().from(userLlmProfiles).where(eq(userLlmProfiles.userId, userId)).get();
}

/** The caller's row, created as `disabled` on first read, so GET never answers 404. */
export async function ensureProfileRow(db: Db, userId: string): Promise<LlmProfileRow> {
  const existing = await findProfileRow(db, userId);
  if (existing) return existing;
  await db.insert(userLlmProfiles).values({ userId, provider: 'disabled' }).onConflictDoNothing();
  const created = await findProfileRow(db, userId);
  if (!created) throw new Error('user_llm_profiles row missing right after insert');
  return created;
}

/**
 * The signed-in caller's saved settings, found through their login (a route preload read with the
 * cookie, worker/routes/ai-sessions.ts), so a message knows its sender's profile without a round trip
 * of its own. Only what resolving the profile needs: the key stays sealed, its last four stay behind.
 */
export function sealedProfileQuery(db: Db, tokenHash: string, guard?: SQL) {
  return db
    .select({
      provider: userLlmProfiles.provider,
      baseUrl: userLlmProfiles.baseUrl,
      model: userLlmProfiles.model,
      timeoutSeconds: userLlmProfiles.timeoutSeconds,
      contextWindow: userLlmProfiles.contextWindow,
      apiKeyCiphertext: userLlmProfiles.apiKeyCiphertext,
      apiKeyNonce: userLlmProfiles.apiKeyNonce,
      apiKeyVersion: userLlmProfiles.apiKeyVersion,
    })
    .from(userLlmProfiles)
    .innerJoin(authSessions, eq(authSessions.userId, userLlmProfiles.userId))
    .where(and(eq(authSessions.tokenHash, tokenHash), guard));
}

/** The stored key's ciphertext, or null when the row has none (all three columns are needed). */
export function sealedKeyOf(row: SealedLlmProfile | undefined): SealedApiKey | null {
  if (!row || row.apiKeyCiphertext === null || row.apiKeyNonce === null || row.apiKeyVersion === null) return null;
  return { ciphertext: row.apiKeyCiphertext, nonce: row.apiKeyNonce, version: row.apiKeyVersion };
}

/**
 * Saves a checked profile (its base URL already normalised) as one upsert. Any save resets the
 * health to `unknown`: the test result was about the previous settings.
 */
export async function saveProfileRow(
  db: Db,
  userId: string,
  profile: CheckedLlmProfile,
  key: ApiKeyChange,
): Promise<LlmProfileRow> {
  const keyColumns =
    key.type === 'keep'
      ? {}
      : key.type === 'clear'
        ? { apiKeyCiphertext: null, apiKeyNonce: null, apiKeyVersion: null, apiKeyLast4: null }
        : {
            apiKeyCiphertext: key.sealed.ciphertext,
            apiKeyNonce: key.sealed.nonce,
            apiKeyVersion: key.sealed.version,
            apiKeyLast4: key.last4,
          };
  const values = {
    provider: profile.provider,
    preset: profile.preset,
    baseUrl: profile.baseUrl,
    model: profile.model,
    timeoutSeconds: profile.timeoutSeconds,
    contextWindow: profile.contextWindow,
    healthStatus: 'unknown' as const,
    lastTestedAt: null,
    updatedAt: nowIso(),
    ...keyColumns,
  };
  const row = await db
    .insert(userLlmProfiles)
    .values({ userId, ...values })
    .onConflictDoUpdate({ target: userLlmProfiles.userId, set: values })
    .returning()
    .get();
  return row;
}

/**
 * Records a connection test of the saved profile. Only if the profile is still the one that was
 * tested (`updated_at` unchanged): a save during a slow test must not inherit its verdict.
 * `updated_at` itself is left alone; it marks changes of the settings, not of their health.
 */
export async function recordHealth(
  db: Db,
  userId: string,
  testedVersion: string,
  status: Exclude<LlmHealthStatus, 'unknown'>,
  testedAt: string,
): Promise<boolean> {
  const result = await db
    .update(userLlmProfiles)
    .set({ healthStatus: status, lastTestedAt: testedAt })
    .where(and(eq(userLlmProfiles.userId, userId), eq(userLlmProfiles.updatedAt, testedVersion)))
    .run();
  return result.meta.changes > 0;
}
