/**
 * The session's durable audit outbox (issue 13): every audit row is written to the object's own
 * SQLite (`audit_outbox`) the moment it happens and copied to D1 in batches later, at a turn's end
 * and from the alarm (never between a turn's iterations). A row leaves the outbox only after the D1 batch holding it
 * succeeded, so neither a restart before the flush nor a failed D1 write loses it; a retried
 * flush re-sends rows D1 may already hold, which `ON CONFLICT DO NOTHING` on their id absorbs.
 */
import type { Db } from '../../../worker/db/client.ts';
import { aiAuditEvents } from '../../../worker/db/schema.ts';
import { logError } from '../../../shared/errors-report.ts';
import { readKv, writeKv } from '../storage.ts';

export type AuditInsert = typeof aiAuditEvents.$inferInsert & { id: string };

/** A row added is flushed by the alarm this soon unless a turn's end flushed it first (a long turn, a stop outside a turn, a crash). */
export const AUDIT_FLUSH_DELAY_MS = 5_000;
/** After a failed flush the alarm retries after 10 s, 20 s, 40 s… at most 10 minutes apart, 12 times. */
export const AUDIT_RETRY_BASE_MS = 10_000;
export const AUDIT_RETRY_MAX_MS = 600_000;
export const AUDIT_MAX_RETRIES = 12;
/** Rows per D1 batch: ten rows per statement (10 × 9 bound parameters stays under D1's limit). */
const ROWS_PER_STATEMENT = 10;
const ROWS_PER_BATCH = 50;
const FAILURES_KEY = 'auditFlushFailures';

export interface AuditOutboxDeps {
  sql: SqlStorage;
  db: Db;
  /** Ask the alarm to flush at `dueAt` (ms since epoch); null: no flush needs the alarm. */
  scheduleFlush: (dueAt: number | null) => void;
}

/** When the next retry is due after `failures` failed flushes in a row; null once the retries are used up. */
export function retryDelay(failures: number): number | null {
  if (failures > AUDIT_MAX_RETRIES) return null;
  return Math.min(AUDIT_RETRY_BASE_MS * 2 ** (failures - 1), AUDIT_RETRY_MAX_MS);
}

export class AuditOutbox {
  readonly #deps: AuditOutboxDeps;
  /** Flushes run one after another, so two never send the same rows at once. */
  #chain: Promise<void> = Promise.resolve();
  #alarmArmed = false;

  constructor(deps: AuditOutboxDeps) {
    this.#deps = deps;
  }

  /** Store a row (its id already set); it reaches D1 at the next flush. */
  write(row: AuditInsert): void {
    this.#deps.sql.exec('INSERT INTO audit_outbox (id, row) VALUES (?, ?) ON CONFLICT(id) DO NOTHING', row.id, JSON.stringify(row));
    if (!this.#alarmArmed) {
      this.#alarmArmed = true;
      this.#deps.scheduleFlush(Date.now() + AUDIT_FLUSH_DELAY_MS);
    }
  }

  /** Rows still waiting for D1. */
  pending(): number {
    return this.#deps.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM audit_outbox').one().n;
  }

  /** Copy every waiting row to D1. Never throws: a failure keeps the rows and schedules a retry. */
  flush(): Promise<void> {
    const run = this.#chain.then(() => this.#flushAll());
    this.#chain = run;
    return run;
  }

  async #flushAll(): Promise<void> {
    if (this.pending() === 0) {
      if (this.#alarmArmed) this.#settled();
      return;
    }
    for (;;) {
      const batch = this.#nextBatch();
      if (batch.length === 0) break;
      try {
        await this.#sendToD1(batch.map((b) => b.row));
      } catch (error) {
        this.#failed(error, batch.length);
        return;
      }
      // Only now, with D1 holding them, may the rows leave the outbox.
      this.#deps.sql.exec('DELETE FROM audit_outbox WHERE seq <= ?', batch.at(-1)!.seq);
    }
    this.#settled();
  }

  #nextBatch(): Array<{ seq: number; row: AuditInsert }> {
    return this.#deps.sql
      .exec<{ seq: number; row: string }>('SELECT seq, row FROM audit_outbox ORDER BY seq LIMIT ?', ROWS_PER_BATCH)
      .toArray()
      .map((r) => ({ seq: r.seq, row: JSON.parse(r.row) as AuditInsert }));
  }

  async #sendToD1(rows: AuditInsert[]): Promise<void> {
    const { db } = this.#deps;
    const statements = [];
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
      statements.push(db.insert(aiAuditEvents).values(rows.slice(i, i + ROWS_PER_STATEMENT)).onConflictDoNothing({ target: aiAuditEvents.id }));
    }
    await db.batch(statements as [(typeof statements)[0], ...typeof statements]);
  }

  #settled(): void {
    if (readKv<number>(this.#deps.sql, FAILURES_KEY)) writeKv(this.#deps.sql, FAILURES_KEY, 0);
    this.#alarmArmed = false;
    this.#deps.scheduleFlush(null);
  }

  #failed(error: unknown, rows: number): void {
    const failures = (readKv<number>(this.#deps.sql, FAILURES_KEY) ?? 0) + 1;
    writeKv(this.#deps.sql, FAILURES_KEY, failures);
    const delay = retryDelay(failures);
    logError('ai session: could not write audit rows; they stay in the outbox', error, { rows, failures, retryInMs: delay });
    // Retries used up: the rows wait for the next checkpoint or the next row (which arms the alarm again).
    this.#alarmArmed = delay !== null;
    this.#deps.scheduleFlush(delay === null ? null : Date.now() + delay);
  }
}
