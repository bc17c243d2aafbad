/**
 * The AI turn's checkpoint in the session's SQLite (storage.ts: turns, tool_runs, messages). The
 * loop writes here after every model response and every tool run, each time in one synchronous
 * step (one implicit transaction), so an object that restarts finds either the state before or
 * the state after, and resumes from it without repeating a finished tool call.
 */
import type { Role } from '../../../shared/api/common.ts';
import type { ContextSummary, TurnStatus, Usage } from '../../../shared/ai/turn.ts';
import { ZERO_USAGE, addUsage } from '../../../shared/ai/turn.ts';
import type { ToolEnvelope } from '../../../shared/ai/tool-envelope.ts';
import type { AssistantMessage, ChatMessage } from '../../../shared/llm/types.ts';
import { readKv, writeKv } from '../storage.ts';

/**
 * What a stored message is, beside its OpenAI role: a person's `message`; the loop's `call`
 * (assistant with tool calls), `tool` results, `answer` (the model's final output, raw) and
 * `repair` requests; and the turn's `summary`, the only assistant text people see.
 */
export type MessageKind = 'message' | 'call' | 'tool' | 'answer' | 'repair' | 'summary';

export interface TurnRecord {
  id: string;
  status: TurnStatus;
  userId: string;
  userName: string;
  userRole: Role;
  content: string;
  suggestOnly: boolean;
  /** Completed model responses in this turn. */
  iteration: number;
  repairs: number;
  /** Corrective requests after an unusable final answer. */
  formatRetries: number;
  /** Times the turn was resumed after a restart. */
  resumes: number;
  usage: Usage;
  /** The composed system + history + user messages, fixed for the whole turn. */
  prefix: ChatMessage[] | null;
  context: ContextSummary | null;
  /** The change-set version the turn staged last (null: nothing staged). */
  stagedVersion: number | null;
  acceptedSeq: number;
  startedAt: number;
  updatedAt: number;
  endedAt: number | null;
  outcome: unknown;
}

type TurnRow = {
  id: string;
  status: string;
  user_id: string;
  user_name: string;
  user_role: string;
  content: string;
  suggest_only: number;
  iteration: number;
  repairs: number;
  format_retries: number;
  resumes: number;
  usage: string;
  prefix: string | null;
  context: string | null;
  staged_version: number | null;
  accepted_seq: number;
  started_at: number;
  updated_at: number;
  ended_at: number | null;
  outcome: string | null;
};

function toRecord(row: TurnRow): TurnRecord {
  return {
    id: row.id,
    status: row.status as TurnStatus,
    userId: row.user_id,
    userName: row.user_name,
    userRole: row.user_role as Role,
    content: row.content,
    suggestOnly: row.suggest_only === 1,
    iteration: row.iteration,
    repairs: row.repairs,
    formatRetries: row.format_retries,
    resumes: row.resumes,
    usage: JSON.parse(row.usage) as Usage,
    prefix: row.prefix === null ? null : (JSON.parse(row.prefix) as ChatMessage[]),
    context: row.context === null ? null : (JSON.parse(row.context) as ContextSummary),
    stagedVersion: row.staged_version,
    acceptedSeq: row.accepted_seq,
    startedAt: row.started_at,
    updatedAt: row.updated_at,
    endedAt: row.ended_at,
    outcome: row.outcome === null ? null : JSON.parse(row.outcome),
  };
}

export interface ToolRun {
  toolCallId: string;
  iteration: number;
  name: string;
  status: 'started' | 'finished';
  result: ToolEnvelope | null;
  durationMs: number | null;
}

export interface StoredMessage {
  id: number;
  role: string;
  content: string;
  turnId: string | null;
  kind: MessageKind;
  createdAt: string;
}

interface MessageExtra {
  kind: MessageKind;
  tool_calls?: AssistantMessage['tool_calls'];
  tool_call_id?: string;
  reasoning_content?: string;
}

export class TurnStore {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  get(turnId: string): TurnRecord | undefined {
    const row = this.#sql.exec<TurnRow>('SELECT * FROM turns WHERE id = ?', turnId).toArray()[0];
    return row ? toRecord(row) : undefined;
  }

  /** The running or paused turn, if any (there is at most one). */
  open(): TurnRecord | undefined {
    const row = this.#sql.exec<TurnRow>("SELECT * FROM turns WHERE status IN ('running', 'paused') ORDER BY started_at DESC LIMIT 1").toArray()[0];
    return row ? toRecord(row) : undefined;
  }

  latest(): TurnRecord | undefined {
    const row = this.#sql.exec<TurnRow>('SELECT * FROM turns ORDER BY started_at DESC, rowid DESC LIMIT 1').toArray()[0];
    return row ? toRecord(row) : undefined;
  }

  /** The user's message and the new turn, in one synchronous write. */
  create(turn: { id: string; userId: string; userName: string; userRole: Role; content: string; suggestOnly: boolean; acceptedSeq: number; now: number }): void {
    this.#sql.exec(
      `INSERT INTO turns (id, status, user_id, user_name, user_role, content, suggest_only, usage, accepted_seq, started_at, updated_at)
       VALUES (?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      turn.id,
      turn.userId,
      turn.userName,
      turn.userRole,
      turn.content,
      turn.suggestOnly ? 1 : 0,
      JSON.stringify(ZERO_USAGE),
      turn.acceptedSeq,
      turn.now,
      turn.now,
    );
    this.addMessage({ role: 'user', content: turn.content }, turn.id, 'message');
  }

  setPrompt(turnId: string, prefix: ChatMessage[], context: ContextSummary): void {
    this.#sql.exec('UPDATE turns SET prefix = ?, context = ?, updated_at = ? WHERE id = ?', JSON.stringify(prefix), JSON.stringify(context), Date.now(), turnId);
  }

  update(
    turnId: string,
    fields: Partial<Pick<TurnRecord, 'status' | 'iteration' | 'repairs' | 'formatRetries' | 'resumes' | 'stagedVersion' | 'endedAt' | 'outcome'>>,
  ): void {
    const columns: Record<string, unknown> = {
      status: fields.status,
      iteration: fields.iteration,
      repairs: fields.repairs,
      format_retries: fields.formatRetries,
      resumes: fields.resumes,
      staged_version: fields.stagedVersion,
      ended_at: fields.endedAt,
      outcome: fields.outcome === undefined ? undefined : JSON.stringify(fields.outcome),
    };
    const set = Object.entries(columns).filter(([, v]) => v !== undefined);
    if (set.length === 0) return;
    this.#sql.exec(
      `UPDATE turns SET ${set.map(([c]) => `${c} = ?`).join(', ')}, updated_at = ? WHERE id = ?`,
      ...set.map(([, v]) => v as string | number | null),
      Date.now(),
      turnId,
    );
  }

  /**
   * Checkpoint after a model response: the assistant message, the iteration and the usage
   * (turn and session), written together.
   */
  recordResponse(turnId: string, iteration: number, message: AssistantMessage, usage: Usage): Usage {
    const turn = this.get(turnId);
    if (!turn) throw new Error(`unknown turn ${turnId}`);
    const turnUsage = addUsage(turn.usage, usage);
    const sessionUsage = addUsage(this.sessionUsage(), usage);
    this.addMessage(message, turnId, message.tool_calls?.length ? 'call' : 'answer');
    this.#sql.exec('UPDATE turns SET iteration = ?, usage = ?, updated_at = ? WHERE id = ?', iteration, JSON.stringify(turnUsage), Date.now(), turnId);
    writeKv(this.#sql, 'usage', sessionUsage);
    return turnUsage;
  }

  sessionUsage(): Usage {
    return readKv<Usage>(this.#sql, 'usage') ?? ZERO_USAGE;
  }

  tokenBudget(): number | null {
    return readKv<number | null>(this.#sql, 'tokenBudget') ?? null;
  }

  setTokenBudget(budget: number | null): void {
    writeKv(this.#sql, 'tokenBudget', budget);
  }

  // ---------------------------------------------------------------- tool runs

  toolRun(turnId: string, iteration: number, toolCallId: string): ToolRun | undefined {
    const row = this.#sql
      .exec<{ tool_call_id: string; iteration: number; name: string; status: string; result: string | null; duration_ms: number | null }>(
        'SELECT tool_call_id, iteration, name, status, result, duration_ms FROM tool_runs WHERE turn_id = ? AND iteration = ? AND tool_call_id = ?',
        turnId,
        iteration,
        toolCallId,
      )
      .toArray()[0];
    if (!row) return undefined;
    return {
      toolCallId: row.tool_call_id,
      iteration: row.iteration,
      name: row.name,
      status: row.status as ToolRun['status'],
      result: row.result === null ? null : (JSON.parse(row.result) as ToolEnvelope),
      durationMs: row.duration_ms,
    };
  }

  startToolRun(turnId: string, iteration: number, toolCallId: string, name: string): void {
    this.#sql.exec(
      `INSERT INTO tool_runs (turn_id, iteration, tool_call_id, name, status, started_at) VALUES (?, ?, ?, ?, 'started', ?)
       ON CONFLICT(turn_id, iteration, tool_call_id) DO UPDATE SET status = 'started', started_at = excluded.started_at`,
      turnId,
      iteration,
      toolCallId,
      name,
      Date.now(),
    );
  }

  /** The tool's result and its `role=tool` message, written together. */
  finishToolRun(turnId: string, iteration: number, toolCallId: string, name: string, result: ToolEnvelope, durationMs: number): void {
    const text = JSON.stringify(result);
    this.#sql.exec(
      `INSERT INTO tool_runs (turn_id, iteration, tool_call_id, name, status, ok, code, result, duration_ms, started_at, finished_at)
       VALUES (?, ?, ?, ?, 'finished', ?, ?, ?, ?, ?, ?)
       ON CONFLICT(turn_id, iteration, tool_call_id) DO UPDATE SET status = 'finished', ok = excluded.ok, code = excluded.code,
         result = excluded.result, duration_ms = excluded.duration_ms, finished_at = excluded.finished_at`,
      turnId,
      iteration,
      toolCallId,
      name,
      result.ok ? 1 : 0,
      result.ok ? null : result.error.code,
      text,
      durationMs,
      Date.now() - durationMs,
      Date.now(),
    );
    this.addMessage({ role: 'tool', tool_call_id: toolCallId, content: text }, turnId, 'tool');
  }

  // ---------------------------------------------------------------- messages

  addMessage(message: ChatMessage, turnId: string | null, kind: MessageKind): number {
    const extra: MessageExtra = { kind };
    if (message.role === 'assistant') {
      if (message.tool_calls?.length) extra.tool_calls = message.tool_calls;
      const reasoning = (message as AssistantMessage).reasoning_content;
      if (typeof reasoning === 'string' && reasoning) extra.reasoning_content = reasoning;
    }
    if (message.role === 'tool') extra.tool_call_id = message.tool_call_id;
    const content = typeof message.content === 'string' ? message.content : message.content == null ? '' : JSON.stringify(message.content);
    return this.#sql
      .exec<{ id: number }>(
        'INSERT INTO messages (role, content, turn_id, extra, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id',
        message.role,
        content,
        turnId,
        JSON.stringify(extra),
        new Date().toISOString(),
      )
      .one().id;
  }

  /** The loop's own messages of a turn (after the prefix), in OpenAI form, oldest first. */
  loopMessages(turnId: string): ChatMessage[] {
    const rows = this.#sql
      .exec<{ role: string; content: string; extra: string | null }>(
        "SELECT role, content, extra FROM messages WHERE turn_id = ? AND (extra IS NULL OR json_extract(extra, '$.kind') != 'message') ORDER BY id",
        turnId,
      )
      .toArray();
    return rows.map((row) => {
      const extra = row.extra ? (JSON.parse(row.extra) as MessageExtra) : { kind: 'message' as const };
      if (row.role === 'tool') return { role: 'tool', tool_call_id: extra.tool_call_id ?? '', content: row.content };
      if (row.role === 'assistant') {
        const message: AssistantMessage = { role: 'assistant', content: row.content === '' && extra.tool_calls ? null : row.content };
        if (extra.tool_calls) message.tool_calls = extra.tool_calls;
        if (extra.reasoning_content) message.reasoning_content = extra.reasoning_content;
        return message;
      }
      return { role: 'user', content: row.content };
    });
  }

  /** The conversation people see: user messages and each turn's final summary (never the loop's internals). */
  conversation(options: { before?: number; limit?: number } = {}): StoredMessage[] {
    const limit = options.limit ?? 1_000_000;
    return this.#sql
      .exec<{ id: number; role: string; content: string; turn_id: string | null; extra: string | null; created_at: string }>(
        `SELECT id, role, content, turn_id, extra, created_at FROM messages
         WHERE id < ? AND (extra IS NULL OR json_extract(extra, '$.kind') IN ('message', 'summary'))
         ORDER BY id DESC LIMIT ?`,
        options.before ?? Number.MAX_SAFE_INTEGER,
        limit,
      )
      .toArray()
      .reverse()
      .map((r) => ({
        id: r.id,
        role: r.role,
        content: r.content,
        turnId: r.turn_id,
        kind: r.extra ? (JSON.parse(r.extra) as MessageExtra).kind : 'message',
        createdAt: r.created_at,
      }));
  }
}
