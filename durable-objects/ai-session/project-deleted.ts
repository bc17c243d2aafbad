/**
 * What a session object does before it lets go of its storage when its project was deleted
 * (ai-session.ts `#projectDeleted`, told by the project channel): stop the running turn (it would
 * spend the sender's tokens for no one), let its last writes land, and hand the audit rows still
 * waiting to D1 once. The object then closes its sockets and deletes every row.
 */
import { logError } from '../../shared/errors-report.ts';
import type { AuditOutbox } from './loop/audit-outbox.ts';
import type { TurnRunner } from './loop/turn-runner.ts';
import type { SessionCore } from './session.ts';

/** How long the stopped turn's last writes are waited for before the storage goes anyway. */
export const RUN_END_WAIT_MS = 10_000;

export interface DeletionDeps {
  core: SessionCore;
  turns: TurnRunner;
  audit: AuditOutbox;
  sessionId: string;
}

export async function settleBeforeDeletion({ core, turns, audit, sessionId }: DeletionDeps): Promise<void> {
  const open = core.turns.open();
  if (open) {
    try {
      await turns.stop({ userId: open.userId, name: open.userName, role: open.userRole });
    } catch (error) {
      logError('ai session: the turn of a deleted project could not be stopped', error, { sessionId });
    }
    // Stop answers after a few seconds at most; the run's last writes (its ending, its audit rows)
    // should land before the storage goes, so its end is awaited, but never for longer than
    // RUN_END_WAIT_MS: a run stuck on a hung call must not hold the project's DELETE. A write the
    // run makes after the release finds no table and fails; it re-creates nothing.
    const run = turns.runOf(open.id)?.catch(() => undefined);
    if (run) await Promise.race([run, new Promise((resolve) => setTimeout(resolve, RUN_END_WAIT_MS))]);
  }
  // One try to hand the audit rows still waiting to D1 (the audit trail outlives the project); what
  // a failing D1 still refuses is dropped with the storage: it was about a project that is gone,
  // and keeping the storage for it would keep every message and file of that project.
  await audit.flush();
  const dropped = audit.pending();
  if (dropped > 0) logError('ai session: audit rows of a deleted project were dropped', new Error('D1 refused the flush'), { sessionId, rows: dropped });
}
