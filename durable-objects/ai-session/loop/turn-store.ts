/**
 * The AI turn's checkpoint in the session's SQLite (storage.ts: turns, tool_runs, messages). The
 * loop writes here after every model response and every tool run, each time in one synchronous
 * step (one implicit transaction), so an object that restarts finds either the state before or
 * the state after, and resumes from it without repeating a finished tool call. The object is the
 * only writer of these tables, so what a turn's loop re-reads every iteration (its record, with the
 * composed prompt, and its loop messages) is kept in memory after the first read (from its creation,
 * for a turn created here) and updated by each write here: an iteration reads no row it has read
 * before, nor looks for a tool run this object knows it never wrote. The kept objects are frozen — shared
 * by every reader, never changed in place (the provider serialises a frozen message once).
 */
import type { Role } from '../../../shared/api/common.ts';
import type { ContextSummary, TurnStatus, Usage } from '../../../shared/ai/turn.ts';
import { ZERO_USAGE, addUsage } from '../../../shared/ai/turn.ts';
import type { ToolEnvelope } from '../../../shared/ai/tool-envelope.ts';
import type { AssistantMessage, ChatMessage } from '../../../shared/llm/types.ts';
import { readKv, writeKv } from '../storage.ts';
import { deepFreeze } from '../../../shared/deep-freeze.ts';

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
    prefix: row.prefix === null ? null : deepFreeze(JSON.parse(row.prefix) as ChatMessage[]),
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

/** A stored loop message in OpenAI form, as the model gets it back (frozen: it is kept and shared). */
function toLoopMessage(role: string, content: string, extra: MessageExtra): ChatMessage {
  if (role === 'tool') return deepFreeze({ role: 'tool', tool_call_id: extra.tool_call_id ?? '', content });
  if (role === 'assistant') {
    const message: AssistantMessage = { role: 'assistant', content: content === '' && extra.tool_calls ? null : content };
    if (extra.tool_calls) message.tool_calls = extra.tool_calls;
    if (extra.reasoning_content) message.reasoning_content = extra.reasoning_content;
    return deepFreeze(message);
  }
  return deepFreeze({ role: 'user', content });
}

/** Turns kept in memory: the running one and a few before it (a resumed or just-ended turn's readers). */
const KEPT_TURNS = 4;

/** `map` with `key` set as its newest entry, the oldest dropped beyond KEPT_TURNS. */
function keep<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > KEPT_TURNS) map.delete(map.keys().next().value!);
}

export class TurnStore {
  readonly #sql: SqlStorage;
  /** Turn records read once, kept as written since (each reader gets its own shallow copy). */
  readonly #records = new Map<string, TurnRecord>();
  /** Each turn's loop messages read once, with every message added since appended. */
  readonly #loop = new Map<string, ChatMessage[]>();
  /** The running or paused turn's id (null: none): read once with its record, then kept by create and update (every accept asks). */
  #openId: string | null | undefined;
  /** Per turn created here, the runs written since (iteration:toolCallId): any other has no row. */
  readonly #runs = new Map<string, Set<string>>();

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  get(turnId: string): TurnRecord | undefined {
    if (!this.#records.has(turnId) && this.#keepRow(this.#sql.exec<TurnRow>('SELECT * FROM turns WHERE id = ?', turnId).toArray()[0]) === null) return undefined;
    return { ...this.#records.get(turnId)! };
  }

  /** Keep a row read as its record; its id, or null for no row. */
  #keepRow(row: TurnRow | undefined): string | null {
    if (row) keep(this.#records, row.id, toRecord(row));
    return row?.id ?? null;
  }

  /** A kept record after a write: the written fields, as they read back from the row. */
  #patch(turnId: string, fields: Partial<TurnRecord>): void {
    const record = this.#records.get(turnId);
    if (record) this.#records.set(turnId, { ...record, ...fields });
  }

  /** The running or paused turn, if any (there is at most one). */
  open(): TurnRecord | undefined {
    if (this.#openId === undefined) this.#openId = this.#keepRow(this.#sql.exec<TurnRow>("SELECT * FROM turns WHERE status IN ('running', 'paused') ORDER BY started_at DESC LIMIT 1").toArray()[0]);
    return this.#openId === null ? undefined : this.get(this.#openId);
  }

  latest(): TurnRecord | undefined {
    const row = this.#sql.exec<TurnRow>('SELECT * FROM turns ORDER BY started_at DESC, rowid DESC LIMIT 1').toArray()[0];
    return row ? toRecord(row) : undefined;
  }

  /** The user's message and the new turn, in one synchronous write. */
  create(turn: { id: string; userId: string; userName: string; userRole: Role; content: string; suggestOnly: boolean; acceptedSeq: number; now: number }): void {
    const usage = JSON.stringify(ZERO_USAGE);
    this.#sql.exec(
      `INSERT INTO turns (id, status, user_id, user_name, user_role, content, suggest_only, usage, accepted_seq, started_at, updated_at)
       VALUES (?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      turn.id,
      turn.userId,
      turn.userName,
      turn.userRole,
      turn.content,
      turn.suggestOnly ? 1 : 0,
      usage,
      turn.acceptedSeq,
      turn.now,
      turn.now,
    );
    this.#openId = turn.id;
    this.addMessage({ role: 'user', content: turn.content }, turn.id, 'message');
    // Kept as the row reads (the columns' defaults; the person's message is not a loop message): the loop's first iteration reads nothing.
    const { id, userId, userName, userRole, content, suggestOnly, acceptedSeq, now } = turn;
    const [user, counts] = [{ user_id: userId, user_name: userName, user_role: userRole }, { iteration: 0, repairs: 0, format_retries: 0, resumes: 0 }];
    const row: TurnRow = { id, status: 'running', ...user, content, suggest_only: suggestOnly ? 1 : 0, ...counts, usage, prefix: null, context: null, staged_version: null, accepted_seq: acceptedSeq, started_at: now, updated_at: now, ended_at: null, outcome: null };
    keep(this.#records, id, toRecord(row));
    keep(this.#loop, id, []);
    keep(this.#runs, id, new Set());
  }

  setPrompt(turnId: string, prefix: ChatMessage[], context: ContextSummary): void {
    const [prefixText, contextText, now] = [JSON.stringify(prefix), JSON.stringify(context), Date.now()];
    this.#sql.exec('UPDATE turns SET prefix = ?, context = ?, updated_at = ? WHERE id = ?', prefixText, contextText, now, turnId);
    // Kept as the row reads (parsed back from the texts written): what a restarted object would send, without a read.
    this.#patch(turnId, { prefix: deepFreeze(JSON.parse(prefixText) as ChatMessage[]), context: JSON.parse(contextText) as ContextSummary, updatedAt: now });
  }

  update(turnId: string, fields: Partial<Pick<TurnRecord, 'status' | 'iteration' | 'repairs' | 'formatRetries' | 'resumes' | 'stagedVersion' | 'endedAt' | 'outcome'>>): void {
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
    const now = Date.now();
    this.#sql.exec(
      `UPDATE turns SET ${set.map(([c]) => `${c} = ?`).join(', ')}, updated_at = ? WHERE id = ?`,
      ...set.map(([, v]) => v as string | number | null),
      now,
      turnId,
    );
    const written = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<TurnRecord>;
    if (fields.outcome !== undefined) written.outcome = JSON.parse(columns['outcome'] as string);
    this.#patch(turnId, { ...written, updatedAt: now });
    if (fields.status !== undefined) this.#openId = fields.status === 'running' || fields.status === 'paused' ? turnId : this.#openId === turnId ? null : this.#openId;
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
    const usageText = JSON.stringify(turnUsage);
    const now = Date.now();
    this.#sql.exec('UPDATE turns SET iteration = ?, usage = ?, updated_at = ? WHERE id = ?', iteration, usageText, now, turnId);
    writeKv(this.#sql, 'usage', sessionUsage);
    this.#patch(turnId, { iteration, usage: JSON.parse(usageText) as Usage, updatedAt: now });
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
    // A turn this object created has only the runs it wrote since: no other has a row to read.
    if (this.#runs.get(turnId)?.has(`${iteration}:${toolCallId}`) === false) return undefined;
    type Row = { tool_call_id: string; iteration: number; name: string; status: ToolRun['status']; result: string | null; duration_ms: number | null };
    const query = 'SELECT tool_call_id, iteration, name, status, result, duration_ms FROM tool_runs WHERE turn_id = ? AND iteration = ? AND tool_call_id = ?';
    const row = this.#sql.exec<Row>(query, turnId, iteration, toolCallId).toArray()[0];
    if (!row) return undefined;
    const result = row.result === null ? null : (JSON.parse(row.result) as ToolEnvelope);
    return { toolCallId: row.tool_call_id, iteration: row.iteration, name: row.name, status: row.status, result, durationMs: row.duration_ms };
  }

  startToolRun(turnId: string, iteration: number, toolCallId: string, name: string): void {
    this.#runs.get(turnId)?.add(`${iteration}:${toolCallId}`);
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

  /** The tool's result and (unless `asMessage` is false: a final answer's changeSet) its `role=tool` message, written together. */
  finishToolRun(turnId: string, iteration: number, toolCallId: string, name: string, result: ToolEnvelope, durationMs: number, asMessage = true): void {
    this.#runs.get(turnId)?.add(`${iteration}:${toolCallId}`);
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
    if (asMessage) this.addMessage({ role: 'tool', tool_call_id: toolCallId, content: text }, turnId, 'tool');
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
    const extraText = JSON.stringify(extra);
    const id = this.#sql
      .exec<{ id: number }>(
        'INSERT INTO messages (role, content, turn_id, extra, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id',
        message.role,
        content,
        turnId,
        extraText,
        new Date().toISOString(),
      )
      .one().id;
    const kept = turnId === null || kind === 'message' ? undefined : this.#loop.get(turnId);
    // As loopMessages would read the row back (the extra through JSON, like the column).
    kept?.push(toLoopMessage(message.role, content, JSON.parse(extraText) as MessageExtra));
    return id;
  }

  /** The loop's own messages of a turn (after the prefix), in OpenAI form, oldest first. */
  loopMessages(turnId: string): ChatMessage[] {
    let kept = this.#loop.get(turnId);
    if (!kept) {
      const rows = this.#sql
        .exec<{ role: string; content: string; extra: string | null }>(
          "SELECT role, content, extra FROM messages WHERE turn_id = ? AND (extra IS NULL OR json_extract(extra, '$.kind') != 'message') ORDER BY id",
          turnId,
        )
        .toArray();
      kept = rows.map((row) => toLoopMessage(row.role, row.content, row.extra ? (JSON.parse(row.extra) as MessageExtra) : { kind: 'message' }));
      keep(this.#loop, turnId, kept);
    }
    return [...kept];
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
