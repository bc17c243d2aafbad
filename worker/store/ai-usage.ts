/**
 * Tokens and estimated cost per person for a project (GET …/ai/usage), from the AI audit trail:
 * the rows that end a turn (`ai.turn.finished|failed|stopped|paused`) carry the turn's usage so
 * far, `estimatedCostUsd` included (shared/ai/turn.ts), and the turn's owner (`turnUserId`).
 *
 * Definitions:
 * - A turn is (session, payload.turnId). Its usage is cumulative, so a turn paused by the budget
 *   and resumed later is counted once, with the largest of its rows' numbers (its last).
 * - The person is payload.turnUserId (who sent the message and so spent the tokens), or the row's
 *   user for rows written before that field existed.
 * - A turn's cost is unknown when any of its rows says null (a model without a price) or, on rows
 *   written before costs were estimated, has calls but no estimate. Unknown costs are counted, not
 *   summed: estimatedCostUsd covers the turns with a known cost only.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import type { AiUsageByPerson, MetricsQuery, PersonUsage } from '../../shared/api/ai-audit.ts';
import { auditWindow } from './ai-audit.ts';

type Row = {
  userId: string;
  name: string | null;
  turns: number;
  prompt: number;
  completion: number;
  total: number;
  cost: number;
  unknown: number;
};

/** A numeric field of the payload `p`, 0 when missing or not a number. Paths are this module's constants. */
const numberText = (path: string) => `(CASE WHEN json_type(p, '${path}') IN ('integer', 'real') THEN json_extract(p, '${path}') ELSE 0 END)`;
const num = (path: string) => sql.raw(numberText(path));

const COST = '$.usage.estimatedCostUsd';
/** 1 when the row's cost is unknown (see above). */
const unknownCost = sql.raw(
  `(CASE WHEN json_type(p, '${COST}') = 'null' THEN 1 WHEN json_type(p, '${COST}') IS NULL AND ${numberText('$.usage.calls')} > 0 THEN 1 ELSE 0 END)`,
);

export async function usageByPerson(db: Db, projectId: string, query: MetricsQuery): Promise<AiUsageByPerson> {
  const window = auditWindow(query);
  const rows = await db.all<Row>(sql`
    WITH ends AS (
      SELECT id, session_id, user_id, (CASE WHEN json_valid(payload_json) THEN payload_json END) AS p
      FROM ai_audit_events
      WHERE project_id = ${projectId}
        AND event_type IN ('ai.turn.finished', 'ai.turn.failed', 'ai.turn.stopped', 'ai.turn.paused')
        ${window.since ? sql`AND created_at >= ${window.since}` : sql``}
        ${window.until ? sql`AND created_at < ${window.until}` : sql``}
    ),
    per_turn AS (
      SELECT max(coalesce(json_extract(p, '$.turnUserId'), user_id)) AS user_id,
             max(${num('$.usage.promptTokens')}) AS prompt,
             max(${num('$.usage.completionTokens')}) AS completion,
             max(${num('$.usage.totalTokens')}) AS total,
             max(${num(COST)}) AS cost,
             max(${unknownCost}) AS unknown
      FROM ends
      GROUP BY coalesce(session_id, '') || '/' || coalesce(json_extract(p, '$.turnId'), '#' || id)
    )
    SELECT per_turn.user_id AS userId, users.name AS name, count(*) AS turns,
           sum(prompt) AS prompt, sum(completion) AS completion, sum(total) AS total,
           sum(CASE WHEN unknown = 1 THEN 0 ELSE cost END) AS cost, sum(unknown) AS unknown
    FROM per_turn LEFT JOIN users ON users.id = per_turn.user_id
    WHERE per_turn.user_id IS NOT NULL
    GROUP BY per_turn.user_id
    ORDER BY total DESC, per_turn.user_id
  `);
  const people: PersonUsage[] = rows.map((row) => ({
    userId: row.userId,
    name: row.name,
    turns: Number(row.turns),
    tokens: { prompt: Number(row.prompt), completion: Number(row.completion), total: Number(row.total) },
    estimatedCostUsd: Number(row.cost),
    turnsWithUnknownCost: Number(row.unknown),
  }));
  return { window, people };
}
