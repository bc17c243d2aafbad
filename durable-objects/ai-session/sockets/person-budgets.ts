/**
 * Each person's budgets for the expensive frames (frame-rates.ts, PERSON_FRAME_RATES) in the
 * object's SQLite, so a session that hibernates or restarts does not give a reconnect burst a full
 * budget again. Not a write per frame: frame-rates.ts saves a bucket only at its marks (the first
 * draw from a full bucket, the draw that takes it to half, the one that empties it), and drops the
 * row once the bucket has refilled.
 */
import { FRAME_RATES, type FrameKind } from '../../../shared/protocol.ts';

export interface SavedBudget {
  userId: string;
  kind: FrameKind;
  /** Tokens left at `at` (ms); the bucket refills from there. */
  tokens: number;
  at: number;
}

export interface BudgetStore {
  load(): SavedBudget[];
  save(budget: SavedBudget): void;
  drop(userId: string, kind: FrameKind): void;
}

interface Row extends Record<string, SqlStorageValue> {
  user_id: string;
  kind: string;
  tokens: number;
  at: number;
}

export class PersonBudgets implements BudgetStore {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  load(): SavedBudget[] {
    return this.#sql
      .exec<Row>('SELECT user_id, kind, tokens, at FROM frame_budgets')
      .toArray()
      .filter((row) => row.kind in FRAME_RATES)
      .map((row) => ({ userId: row.user_id, kind: row.kind as FrameKind, tokens: row.tokens, at: row.at }));
  }

  save({ userId, kind, tokens, at }: SavedBudget): void {
    this.#sql.exec(
      'INSERT INTO frame_budgets (user_id, kind, tokens, at) VALUES (?, ?, ?, ?) ON CONFLICT(user_id, kind) DO UPDATE SET tokens = excluded.tokens, at = excluded.at',
      userId,
      kind,
      tokens,
      at,
    );
  }

  drop(userId: string, kind: FrameKind): void {
    this.#sql.exec('DELETE FROM frame_budgets WHERE user_id = ? AND kind = ?', userId, kind);
  }
}
