/**
 * Reads of the AI audit trail (`ai_audit_events`) for GET …/ai/audit/events and
 * GET …/ai/metrics. Writers (the session routes and the session Durable Object) follow the payload
 * contract in shared/ai/audit.ts; the metrics below read exactly those fields.
 *
 * Every number is scoped to one project and the optional window: `since` inclusive, `until`
 * exclusive, both compared with `created_at` after normalising to `Date#toISOString()` (the form
 * every row is written in, so text order is time order; sub-millisecond digits are dropped).
 *
 * Metric definitions:
 * - sessions = `ai.session.created` rows; messages = `ai.message.sent` rows; validationFailures =
 *   `ai.validation.failed` rows.
 * - turns.finished/failed/stopped/paused = rows of `ai.turn.<that>`. turns.total = distinct turns
 *   that ended in one of those four ways, a turn being (session, payload.turnId) (a row without a
 *   turnId counts on its own): a turn paused by the token budget and resumed later ends twice
 *   but is one turn.
 * - turns.successRate = finished / (finished + failed); null when both are 0. Stopped and paused
 *   turns are neither successes nor failures.
 * - latencyMs = p50 / p95 / max of `latency_ms` over `ai.turn.finished|failed|stopped` rows with a
 *   latency, by the nearest-rank method: with the n values sorted ascending, the p-th percentile
 *   is the value at 1-based rank ceil(p/100 · n). It is always an observed value (no interpolation).
 *   All null when there is no such row.
 * - tools.calls = `ai.tool.called` rows; tools.forbidden = those with code AI_TOOL_FORBIDDEN (the
 *   model asked for `builder.change.apply`); tools.notAllowed = code AI_TOOL_NOT_ALLOWED;
 *   tools.failed = those whose payload.ok is JSON `false` (so it includes the two above).
 * - codes = for every non-null `code`, how many rows (of any type) carry it.
 * - repairs = sum of payload.repairs over `ai.turn.finished|failed` rows.
 * - apply.succeeded / apply.failed = rows of those types; apply.revisionMismatchWarnings = total
 *   length of payload.warnings over `ai.apply.succeeded` rows.
 * - apply.conversion = converted / proposed, null when proposed is 0, where proposed = distinct
 *   sessions with an `ai.turn.finished` whose payload.changeSetId is not null, and converted =
 *   those of them that also have an `ai.apply.succeeded` in the window. Applies of changes staged
 *   by hand, without an AI proposal in the window, are not conversions: this keeps the ratio in 0..1.
 * - tokens = sums of payload.usage.promptTokens / completionTokens / totalTokens over
 *   `ai.turn.finished|failed|stopped|paused` rows (each row carries the usage of its own turn).
 *
 * Payload fields of the wrong JSON type count as 0, and a payload that is not valid JSON is
 * skipped, so one bad row cannot break the numbers.
 */
import { and, asc, count, desc, eq, gte, inArray, isNotNull, lt, or, sql, type Column, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import type { Db } from '../db/client.ts';
import { aiAuditEvents } from '../db/schema.ts';
import { ApiError } from '../../shared/api-error.ts';
import type { AuditEventType } from '../../shared/ai/audit.ts';
import type { AiMetrics, AuditEventsPage, AuditEventsQuery, AuditEventView, MetricsQuery } from '../../shared/api/ai-audit.ts';

const t = aiAuditEvents;

const TURN_TIMED: readonly AuditEventType[] = ['ai.turn.finished', 'ai.turn.failed', 'ai.turn.stopped'];
const TURN_REPAIRS: readonly AuditEventType[] = ['ai.turn.finished', 'ai.turn.failed'];
const TURN_ENDS: readonly AuditEventType[] = [...TURN_TIMED, 'ai.turn.paused'];

// ---------------------------------------------------------------------------------------------
// Window and cursor

export interface AuditWindow {
  since: string | null;
  until: string | null;
}

function invalid(path: string, message: string, hint: string): ApiError {
  return new ApiError('VALIDATION_FAILED', { message, hints: [hint], details: [{ path, message }] });
}

/** The window in the stored form of `created_at`; `since` after `until` is a mistake, not an empty answer. */
export function auditWindow(query: { since?: string | undefined; until?: string | undefined }): AuditWindow {
  const since = query.since ? new Date(query.since).toISOString() : null;
  const until = query.until ? new Date(query.until).toISOString() : null;
  if (since && until && since > until) {
    throw invalid('since', `since (${since}) is after until (${until}).`, 'Send a since that is not later than until.');
  }
  return { since, until };
}

function scope(projectId: string, window: AuditWindow, table: { projectId: Column; createdAt: Column } = t): SQL[] {
  const conditions: SQL[] = [eq(table.projectId, projectId)];
  if (window.since) conditions.push(gte(table.createdAt, window.since));
  if (window.until) conditions.push(lt(table.createdAt, window.until));
  return conditions;
}

interface Cursor {
  createdAt: string;
  id: string;
}

function toBase64Url(text: string): string {
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** `nextCursor`: the last row's (createdAt, id), opaque to clients so its form can change. */
export function encodeCursor(cursor: Cursor): string {
  return toBase64Url(JSON.stringify([cursor.createdAt, cursor.id]));
}

export function decodeCursor(value: string): Cursor | null {
  try {
    const parsed: unknown = JSON.parse(atob(value.replace(/-/g, '+').replace(/_/g, '/')));
    if (!Array.isArray(parsed) || parsed.length !== 2) return null;
    const [createdAt, id] = parsed as unknown[];
    if (typeof createdAt !== 'string' || typeof id !== 'string' || !createdAt || !id) return null;
    return { createdAt, id };
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// The event list

function parsePayload(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    // Writers always store JSON.stringify output; a damaged row shows as null rather than failing the page.
    return null;
  }
}

/** Newest first (created_at desc, id desc), keyset-paginated on the project's (project, created_at) index. */
export async function listAuditEvents(db: Db, projectId: string, query: AuditEventsQuery): Promise<AuditEventsPage> {
  const conditions = scope(projectId, auditWindow(query));
  if (query.type) conditions.push(eq(t.eventType, query.type));
  if (query.sessionId) conditions.push(eq(t.sessionId, query.sessionId));
  if (query.userId) conditions.push(eq(t.userId, query.userId));
  if (query.code) conditions.push(eq(t.code, query.code));
  if (query.before !== undefined) {
    const cursor = decodeCursor(query.before);
    if (!cursor) {
      throw invalid('before', 'before is not a cursor this API returned.', 'Pass the nextCursor of the previous page unchanged, or leave before out for the first page.');
    }
    conditions.push(or(lt(t.createdAt, cursor.createdAt), and(eq(t.createdAt, cursor.createdAt), lt(t.id, cursor.id)))!);
  }
  const rows = await db
    .select()
    .from(t)
    .where(and(...conditions))
    .orderBy(desc(t.createdAt), desc(t.id))
    .limit(query.limit + 1);
  const items: AuditEventView[] = rows.slice(0, query.limit).map((row) => ({
    id: row.id,
    type: row.eventType,
    sessionId: row.sessionId,
    userId: row.userId,
    code: row.code,
    latencyMs: row.latencyMs,
    payload: parsePayload(row.payloadJson),
    createdAt: row.createdAt,
  }));
  const last = items.at(-1);
  return { items, nextCursor: rows.length > query.limit && last ? encodeCursor(last) : null };
}

// ---------------------------------------------------------------------------------------------
// Metrics

/**
 * A constant of this module as an SQL literal. Inlined rather than bound: D1 allows 100 bound
 * parameters per statement (developers.cloudflare.com/d1/platform/limits) and the aggregate
 * below names types and JSON paths dozens of times. Only our own constants reach here.
 */
function lit(value: string): SQL {
  if (!/^[\w.$]+$/.test(value)) throw new Error(`not a safe SQL literal: ${value}`);
  return sql.raw(`'${value}'`);
}

function isType(type: AuditEventType): SQL {
  return sql`${t.eventType} = ${lit(type)}`;
}

function typeIn(types: readonly AuditEventType[]): SQL {
  return sql`${t.eventType} IN (${sql.join(types.map(lit), sql`, `)})`;
}

/** The payload when it is valid JSON, else NULL (every json_* function then yields NULL). */
function payloadOf(column: Column): SQL {
  return sql`(CASE WHEN json_valid(${column}) THEN ${column} END)`;
}

const payload = payloadOf(t.payloadJson);

function field(path: string): SQL {
  return sql`json_extract(${payload}, ${lit(path)})`;
}

/** A numeric payload field, 0 when it is missing or not a JSON number. */
function numberField(path: string): SQL {
  return sql`(CASE WHEN json_type(${payload}, ${lit(path)}) IN ('integer', 'real') THEN ${field(path)} ELSE 0 END)`;
}

function sumWhere(condition: SQL, value: SQL = sql`1`): SQL<number> {
  return sql<number>`coalesce(sum(CASE WHEN ${condition} THEN ${value} END), 0)`.mapWith(Number);
}

/** Value at 1-based rank ceil(p/100 · n) of ascending `sorted`. */
export function nearestRank(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

export async function computeAiMetrics(db: Db, projectId: string, query: MetricsQuery): Promise<AiMetrics> {
  const window = auditWindow(query);
  const inScope = and(...scope(projectId, window));

  const proposal = alias(t, 'proposal');
  const proposedSessions = db
    .select({ sessionId: proposal.sessionId })
    .from(proposal)
    .where(
      and(
        ...scope(projectId, window, proposal),
        eq(proposal.eventType, 'ai.turn.finished'),
        sql`json_extract(${payloadOf(proposal.payloadJson)}, ${lit('$.changeSetId')}) IS NOT NULL`,
      ),
    );
  const finishedWithChanges = sql`${isType('ai.turn.finished')} AND ${field('$.changeSetId')} IS NOT NULL`;
  const toolCall = (condition: SQL) => sql`${isType('ai.tool.called')} AND ${condition}`;
  const turnKey = sql`coalesce(${t.sessionId}, '') || '/' || coalesce(${field('$.turnId')}, '#' || ${t.id})`;

  const [byType, byCode, sums, latencies] = await db.batch([
    db.select({ type: t.eventType, n: count() }).from(t).where(inScope).groupBy(t.eventType),
    db
      .select({ code: t.code, n: count() })
      .from(t)
      .where(and(inScope, isNotNull(t.code)))
      .groupBy(t.code)
      .orderBy(asc(t.code)),
    db
      .select({
        turns: sql<number>`count(DISTINCT CASE WHEN ${typeIn(TURN_ENDS)} THEN ${turnKey} END)`.mapWith(Number),
        toolsFailed: sumWhere(toolCall(sql`json_type(${payload}, '$.ok') = 'false'`)),
        toolsForbidden: sumWhere(toolCall(sql`${t.code} = ${lit('AI_TOOL_FORBIDDEN')}`)),
        toolsNotAllowed: sumWhere(toolCall(sql`${t.code} = ${lit('AI_TOOL_NOT_ALLOWED')}`)),
        repairs: sumWhere(typeIn(TURN_REPAIRS), numberField('$.repairs')),
        warnings: sumWhere(
          isType('ai.apply.succeeded'),
          sql`(CASE WHEN json_type(${payload}, '$.warnings') = 'array' THEN json_array_length(${payload}, '$.warnings') ELSE 0 END)`,
        ),
        promptTokens: sumWhere(typeIn(TURN_ENDS), numberField('$.usage.promptTokens')),
        completionTokens: sumWhere(typeIn(TURN_ENDS), numberField('$.usage.completionTokens')),
        totalTokens: sumWhere(typeIn(TURN_ENDS), numberField('$.usage.totalTokens')),
        proposed: sql<number>`count(DISTINCT CASE WHEN ${finishedWithChanges} THEN ${t.sessionId} END)`.mapWith(Number),
        converted: sql<number>`count(DISTINCT CASE WHEN ${isType('ai.apply.succeeded')} AND ${inArray(t.sessionId, proposedSessions)} THEN ${t.sessionId} END)`.mapWith(Number),
      })
      .from(t)
      .where(inScope),
    // Only the latency column of the timed turn rows leaves D1, already sorted.
    db
      .select({ ms: t.latencyMs })
      .from(t)
      .where(and(inScope, typeIn(TURN_TIMED), isNotNull(t.latencyMs)))
      .orderBy(asc(t.latencyMs)),
  ]);

  const typeCount = (type: AuditEventType) => byType.find((row) => row.type === type)?.n ?? 0;
  const totals = sums[0];
  const sorted = latencies.map((row) => row.ms!);
  const finished = typeCount('ai.turn.finished');
  const failed = typeCount('ai.turn.failed');
  const proposed = totals?.proposed ?? 0;

  return {
    window,
    sessions: typeCount('ai.session.created'),
    messages: typeCount('ai.message.sent'),
    turns: {
      total: totals?.turns ?? 0,
      finished,
      failed,
      stopped: typeCount('ai.turn.stopped'),
      paused: typeCount('ai.turn.paused'),
      successRate: finished + failed === 0 ? null : finished / (finished + failed),
    },
    latencyMs: { p50: nearestRank(sorted, 50), p95: nearestRank(sorted, 95), max: sorted.at(-1) ?? null },
    tools: {
      calls: typeCount('ai.tool.called'),
      failed: totals?.toolsFailed ?? 0,
      forbidden: totals?.toolsForbidden ?? 0,
      notAllowed: totals?.toolsNotAllowed ?? 0,
    },
    codes: Object.fromEntries(byCode.map((row) => [row.code!, row.n])),
    repairs: totals?.repairs ?? 0,
    validationFailures: typeCount('ai.validation.failed'),
    apply: {
      succeeded: typeCount('ai.apply.succeeded'),
      failed: typeCount('ai.apply.failed'),
      revisionMismatchWarnings: totals?.warnings ?? 0,
      conversion: proposed === 0 ? null : (totals?.converted ?? 0) / proposed,
    },
    tokens: { prompt: totals?.promptTokens ?? 0, completion: totals?.completionTokens ?? 0, total: totals?.totalTokens ?? 0 },
  };
}
