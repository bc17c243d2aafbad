/**
 * Audit rows of a turn (shared/ai/audit.ts), redacted and written to D1 in batches: the loop adds
 * rows as things happen and flushes at each checkpoint and at the end, so a tool call costs no
 * extra D1 round trip. Best effort: an audit failure is logged, it never fails the turn.
 */
import type { Db } from '../../../worker/db/client.ts';
import { aiAuditEvents } from '../../../worker/db/schema.ts';
import { newId } from '../../../shared/ids.ts';
import { redactSecrets } from '../../../worker/llm/redact.ts';
import type { AuditEventType } from '../../../shared/ai/audit.ts';
import { logError } from '../../../shared/errors-report.ts';

export interface AuditRow {
  type: AuditEventType;
  userId: string | null;
  code?: string | null;
  latencyMs?: number | null;
  payload: Record<string, unknown>;
}

export class AuditBuffer {
  readonly #db: Db;
  readonly #projectId: string;
  readonly #sessionId: string;
  readonly #secrets: string[];
  #rows: Array<typeof aiAuditEvents.$inferInsert> = [];

  constructor(db: Db, scope: { projectId: string; sessionId: string }, secrets: readonly string[] = []) {
    this.#db = db;
    this.#projectId = scope.projectId;
    this.#sessionId = scope.sessionId;
    this.#secrets = [...secrets];
  }

  add(row: AuditRow): void {
    this.#rows.push({
      id: newId('aud'),
      projectId: this.#projectId,
      sessionId: this.#sessionId,
      userId: row.userId,
      eventType: row.type,
      code: row.code ?? null,
      latencyMs: row.latencyMs == null ? null : Math.round(row.latencyMs),
      payloadJson: JSON.stringify(redactSecrets(row.payload, this.#secrets)),
      createdAt: new Date().toISOString(),
    });
  }

  async flush(): Promise<void> {
    if (this.#rows.length === 0) return;
    const rows = this.#rows;
    this.#rows = [];
    try {
      // D1 limits bound parameters per statement; 10 rows × 9 columns stays well under it.
      const statements = [];
      for (let i = 0; i < rows.length; i += 10) statements.push(this.#db.insert(aiAuditEvents).values(rows.slice(i, i + 10)));
      await this.#db.batch(statements as [(typeof statements)[0], ...typeof statements]);
    } catch (error) {
      logError('ai session: could not write audit rows', error, { sessionId: this.#sessionId, rows: rows.length });
    }
  }
}
