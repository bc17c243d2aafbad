/**
 * What the session writes to D1 outside an apply: each change-set version mirrored into
 * `ai_change_sets` with the session's latest suggestion and its impact digest (best effort: the object's own storage
 * is the truth), the audit row of a failed apply, and a cancel (session status + audit, one batch).
 */
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../../worker/db/client.ts';
import { aiAuditEvents, aiChangeSets, aiSessions } from '../../../worker/db/schema.ts';
import { newId, nowIso } from '../../../shared/ids.ts';
import type { SessionMeta } from '../../../shared/ai/session.ts';
import type { ChangeValidation } from '../../../shared/ai/validation-result.ts';
import type { ChangeVersion } from '../overlay/versions.ts';
import type { ImpactDigest } from '../../../shared/ai/impact-digest.ts';
import { logError } from '../../../shared/errors-report.ts';

/**
 * Versions whose row this isolate wrote (change-set ids are unique, so objects sharing the isolate
 * never collide): an apply of one updates its status instead of sending the whole change set again.
 * An isolate that restarted knows none, and the apply then sends it (an upsert), as it does for a
 * version whose mirror failed. Bounded: past the bound it starts over, which only costs bytes.
 */
const mirrored = new Set<string>();
const MIRRORED_KEPT = 1_000;

/** True when this isolate wrote the `ai_change_sets` row of the version `changeSetId`. */
export function wasMirrored(changeSetId: string): boolean {
  return mirrored.has(changeSetId);
}

export async function mirrorVersion(
  db: Db,
  meta: SessionMeta,
  version: ChangeVersion,
  validation: ChangeValidation | null,
  rejected = false,
  /** The version's impact, when it was just computed; otherwise the stored one is kept (same version, same content). */
  impact?: ImpactDigest,
): Promise<void> {
  const now = nowIso();
  const status = rejected ? 'rejected' : validation ? (validation.valid ? 'validated' : 'rejected') : 'staged';
  const validationJson = validation ? JSON.stringify(validation) : null;
  const suggestionJson = JSON.stringify({ changeSetId: version.id, version: version.version, contentHash: version.contentHash, files: version.files, status, ...(impact ? { impact } : {}) });
  // The Sessions list reads the impact from here; a re-mirror (validation, discard) keeps the one stored with the version.
  const suggestion = impact ? suggestionJson : sql`json_set(${suggestionJson}, '$.impact', json(json_extract(${aiSessions.latestSuggestionJson}, '$.impact')))`;
  try {
    await db.batch([
      db
        .insert(aiChangeSets)
        .values({
          id: version.id,
          sessionId: meta.sessionId,
          projectId: meta.projectId,
          suggestionVersion: version.version,
          changeSetJson: JSON.stringify(version.changeSet ?? { files: version.files }),
          contentHash: version.contentHash,
          validationResultJson: validationJson,
          status,
          createdBy: version.createdBy,
          createdAt: version.createdAt,
          updatedAt: now,
        })
        .onConflictDoUpdate({ target: aiChangeSets.id, set: { validationResultJson: validationJson, status, updatedAt: now } }),
      db.update(aiSessions).set({ latestSuggestionJson: suggestion, updatedAt: now }).where(eq(aiSessions.id, meta.sessionId)),
    ]);
    if (mirrored.size >= MIRRORED_KEPT) mirrored.clear();
    mirrored.add(version.id);
  } catch (error) {
    logError('ai session: could not mirror change set', error, { sessionId: meta.sessionId, changeSetId: version.id });
  }
}

/** `cause` is the error code of what failed (never the error's text, which may carry SQL parameters). */
export async function auditApplyFailed(db: Db, meta: SessionMeta, userId: string, version: ChangeVersion, cause: string): Promise<void> {
  try {
    await db.insert(aiAuditEvents).values({
      id: newId('aud'),
      projectId: meta.projectId,
      sessionId: meta.sessionId,
      userId,
      eventType: 'ai.apply.failed',
      code: 'AI_APPLY_FAILED',
      payloadJson: JSON.stringify({ changeSetId: version.id, version: version.version, cause }),
      createdAt: nowIso(),
    });
  } catch (error) {
    logError('ai session: could not audit a failed apply', error, { sessionId: meta.sessionId });
  }
}

/** Mark the session cancelled in D1 with its audit row; throws when D1 refuses (nothing changed). */
export async function recordCancel(db: Db, meta: SessionMeta, userId: string): Promise<void> {
  const now = nowIso();
  await db.batch([
    db.update(aiSessions).set({ status: 'cancelled', updatedAt: now }).where(eq(aiSessions.id, meta.sessionId)),
    db.insert(aiAuditEvents).values({
      id: newId('aud'),
      projectId: meta.projectId,
      sessionId: meta.sessionId,
      userId,
      eventType: 'ai.session.cancelled',
      payloadJson: '{}',
      createdAt: now,
    }),
  ]);
}
