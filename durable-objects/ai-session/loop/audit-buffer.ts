/**
 * Audit rows of a turn (shared/ai/audit.ts), redacted with the turn's secrets and written at once
 * to the session's durable outbox (audit-outbox.ts); the outbox reaches D1 in batches at the turn's
 * end and from the alarm, so a tool call or an iteration costs no D1 round trip. Best effort for the
 * turn: an audit failure is logged and retried later, it never fails the turn.
 */
import { newId } from '../../../shared/ids.ts';
import { redactSecrets } from '../../../worker/llm/redact.ts';
import type { AuditEventType } from '../../../shared/ai/audit.ts';
import type { AuditOutbox } from './audit-outbox.ts';

export interface AuditRow {
  type: AuditEventType;
  userId: string | null;
  code?: string | null;
  latencyMs?: number | null;
  payload: Record<string, unknown>;
}

export class AuditBuffer {
  readonly #outbox: AuditOutbox;
  readonly #projectId: string;
  readonly #sessionId: string;
  readonly #secrets: string[];

  constructor(outbox: AuditOutbox, scope: { projectId: string; sessionId: string }, secrets: readonly string[] = []) {
    this.#outbox = outbox;
    this.#projectId = scope.projectId;
    this.#sessionId = scope.sessionId;
    this.#secrets = [...secrets];
  }

  add(row: AuditRow): void {
    // The id is fixed here, before any write: a retried flush sends the same id, never a second row.
    this.#outbox.write({
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

  /** Copy the outbox to D1 (every waiting row, this turn's and any left from before). */
  flush(): Promise<void> {
    return this.#outbox.flush();
  }
}
