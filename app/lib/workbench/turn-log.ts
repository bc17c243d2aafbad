/**
 * The AI turns of a session as the workbench shows them, folded from its sequenced events
 * (shared/ai/events.ts): per turn the person's message, a status line, the streamed text, one
 * compact line per tool call, the context summary and the ending. Pure and DOM-free; the
 * `WorkbenchSession` store folds every event it receives through `foldEvents`.
 */
import type { SessionEvent } from '../../../shared/ai/events.ts';
import type { ContextSummary, Usage } from '../../../shared/ai/turn.ts';
import { formatCostUsd } from '../../../shared/ai/cost-format.ts';
import type { PersonUsage } from '../../../shared/api/ai-audit.ts';
import type { FileAction } from '../../../shared/ai/overlay.ts';
import { t } from '../i18n/i18n.svelte.ts';
import '../i18n/workbench-words.ts';
import { formatNumber } from '../format.ts';
import type { ToolWords } from '../../../shared/ai/tool-words.ts';
import { toolRequestText } from './detail-words.ts';
import { withoutThinking } from '../../../shared/llm/thinking.ts';

/** One tool call: what it asked for, then how it went. */
export interface ToolLine {
  toolCallId: string;
  name: string;
  iteration: number;
  /** What the call asks for (`step wf/n1`), from `tool.started`. */
  request: string;
  /** What it answered, from `tool.finished`; null while it runs. */
  result: string | null;
  ok: boolean | null;
  code: string | null;
  durationMs: number | null;
  /** `request` and `result` as codes and values, when the session sent them (tool-words.ts). */
  requestWords?: ToolWords;
  resultWords?: ToolWords;
}

/** What the turn is doing right now (the status line). */
export type TurnPhase =
  | { kind: 'waiting' }
  | { kind: 'preparing' }
  | { kind: 'thinking'; iteration: number }
  | { kind: 'writing'; iteration: number }
  | { kind: 'tool'; name: string; request: string; requestWords?: ToolWords }
  | { kind: 'validating'; version: number }
  | { kind: 'repairing'; attempt: number; maxRepairs: number; errorCount: number }
  | { kind: 'resumed'; reason: 'restart' | 'budget' };

export type TurnEnding =
  | {
      type: 'finished';
      /** The model's own words. */
      summary: string;
      /** The files the system staged in this turn (from the version, never from the model's words); null when nothing was. */
      staged: StagedFile[] | null;
      responseType: 'chat' | 'change';
      valid: boolean | null;
      needsManualFix: boolean;
      version: number | null;
      usage: Usage;
    }
  | {
      type: 'failed';
      code: string;
      message: string;
      hints: string[];
      /** The AI said it changed something, but nothing was staged (`outcome: no_changes_staged`). */
      noChangesStaged: boolean;
      usage: Usage;
    }
  | { type: 'stopped'; stoppedBy: string; usage: Usage }
  | { type: 'paused'; message: string; tokenBudget: number; usage: Usage };

/** One file a turn staged, shown in the reader's language by `stagedText`. */
export interface StagedFile {
  key: string;
  action: FileAction;
}

export interface TurnActivity {
  turnId: string;
  /** The person's message (`turn.accepted`). */
  content: string;
  suggestOnly: boolean;
  requestedBy: string | null;
  acceptedSeq: number;
  phase: TurnPhase;
  /** Assistant text streamed in the newest model call. */
  text: string;
  tools: ToolLine[];
  context: ContextSummary | null;
  /** The latest ending; a `paused` one is followed later by one of the other three. */
  ending: TurnEnding | null;
}

export interface SessionLog {
  turns: TurnActivity[];
  /** The newest seq folded in. */
  lastSeq: number;
  cancelled: boolean;
  /** The last `apply.failed` since the last `change.applied`. */
  applyFailure: { code: string; message: string } | null;
}

export const EMPTY_LOG: SessionLog = { turns: [], lastSeq: 0, cancelled: false, applyFailure: null };

/** A turn still occupies the session (running, or paused by the token budget). */
export function isOpen(turn: TurnActivity | undefined): boolean {
  return turn !== undefined && (turn.ending === null || turn.ending.type === 'paused');
}

/** A turn that is working right now (not paused). */
export function isRunning(turn: TurnActivity | undefined): boolean {
  return turn !== undefined && turn.ending === null;
}

/**
 * Folds `events` (in seq order) into `log`. Events at or below `log.lastSeq` are skipped, so a
 * replay that overlaps what was already applied changes nothing. Returns a new log.
 */
export function foldEvents(log: SessionLog, events: readonly SessionEvent[]): SessionLog {
  const turns = log.turns.map((t) => ({ ...t, tools: [...t.tools] }));
  const byId = new Map(turns.map((t) => [t.turnId, t]));
  let { lastSeq, cancelled, applyFailure } = log;

  for (const event of events) {
    if (event.seq <= lastSeq) continue;
    lastSeq = event.seq;
    if (event.type === 'turn.accepted') {
      const fresh = acceptedTurn(event);
      turns.push(fresh);
      byId.set(fresh.turnId, fresh);
      continue;
    }
    const turn = event.turnId === null ? undefined : byId.get(event.turnId);
    if (turn) foldTurnEvent(turn, event);
    // Session-wide flags; staging, validation and review events change nothing here (the store refreshes its views on them).
    if (event.type === 'session.cancelled') cancelled = true;
    else if (event.type === 'apply.failed') applyFailure = { code: event.payload.code, message: event.payload.message };
    else if (event.type === 'change.applied') applyFailure = null;
  }
  return { turns, lastSeq, cancelled, applyFailure };
}

type EventOf<T extends SessionEvent['type']> = Extract<SessionEvent, { type: T }>;

/** A new turn from `turn.accepted`: the person's message, nothing done yet. */
function acceptedTurn(event: EventOf<'turn.accepted'>): TurnActivity {
  return {
    turnId: event.turnId ?? `seq-${event.seq}`,
    content: event.payload.content,
    suggestOnly: event.payload.suggestOnly,
    requestedBy: event.actor.kind === 'user' ? event.actor.name : null,
    acceptedSeq: event.seq,
    phase: { kind: 'waiting' },
    text: '',
    tools: [],
    context: null,
    ending: null,
  };
}

/** Applies one event of `turn` (a copy `foldEvents` owns) to its phase, text, tools or ending. */
function foldTurnEvent(turn: TurnActivity, event: SessionEvent): void {
  switch (event.type) {
    case 'turn.context':
      turn.context = event.payload;
      turn.phase = { kind: 'preparing' };
      break;
    case 'llm.requested':
      turn.phase = { kind: 'thinking', iteration: event.payload.iteration };
      turn.text = '';
      break;
    case 'assistant.delta':
      turn.text += event.payload.text;
      turn.phase = { kind: 'writing', iteration: event.payload.iteration };
      break;
    case 'llm.completed':
      turn.phase = { kind: 'thinking', iteration: event.payload.iteration };
      break;
    case 'tool.started':
      recordToolStart(turn, event);
      break;
    case 'tool.finished':
      recordToolFinish(turn, event);
      break;
    case 'turn.validating':
      turn.phase = { kind: 'validating', version: event.payload.version };
      break;
    case 'turn.repairing':
      turn.phase = { kind: 'repairing', ...event.payload };
      break;
    case 'turn.resumed':
      turn.phase = { kind: 'resumed', reason: event.payload.reason };
      if (turn.ending?.type === 'paused') turn.ending = null;
      break;
    case 'turn.finished':
    case 'turn.failed':
    case 'turn.stopped':
    case 'turn.paused':
      turn.ending = endingOf(event);
      break;
    default:
      break;
  }
}

function recordToolStart(turn: TurnActivity, event: EventOf<'tool.started'>): void {
  turn.tools.push({
    toolCallId: event.payload.toolCallId,
    name: event.payload.name,
    iteration: event.payload.iteration,
    request: event.payload.summary,
    result: null,
    ok: null,
    code: null,
    durationMs: null,
    ...(event.payload.words ? { requestWords: event.payload.words } : {}),
  });
  turn.phase = { kind: 'tool', name: event.payload.name, request: event.payload.summary, ...(event.payload.words ? { requestWords: event.payload.words } : {}) };
}

/** Completes the call's line, or adds one when its start was not seen. */
function recordToolFinish(turn: TurnActivity, event: EventOf<'tool.finished'>): void {
  const { toolCallId, name, iteration, summary, ok, code, durationMs } = event.payload;
  const index = turn.tools.findIndex((t) => t.toolCallId === toolCallId);
  const line: ToolLine = {
    toolCallId,
    name,
    iteration,
    request: index >= 0 ? turn.tools[index]!.request : '',
    result: summary,
    ok,
    code,
    durationMs,
  };
  const requestWords = index >= 0 ? turn.tools[index]!.requestWords : undefined;
  if (requestWords) line.requestWords = requestWords;
  if (event.payload.words) line.resultWords = event.payload.words;
  if (index >= 0) turn.tools[index] = line;
  else turn.tools.push(line);
  turn.phase = { kind: 'thinking', iteration };
}

/** How the turn ended (or paused), from one of its four ending events. */
function endingOf(event: EventOf<'turn.finished' | 'turn.failed' | 'turn.stopped' | 'turn.paused'>): TurnEnding {
  switch (event.type) {
    case 'turn.finished': {
      const p = event.payload;
      return {
        type: 'finished',
        summary: p.summary,
        // Shown beside the staged change set: the system's list of what it staged, not the model's account.
        staged: p.staged ? p.staged.files.map(({ key, action }) => ({ key, action })) : null,
        responseType: p.responseType,
        valid: p.valid,
        needsManualFix: p.needsManualFix,
        version: p.version,
        usage: p.usage,
      };
    }
    case 'turn.failed':
      return {
        type: 'failed',
        code: event.payload.code,
        message: event.payload.message,
        hints: event.payload.hints,
        noChangesStaged: event.payload.outcome === 'no_changes_staged',
        usage: event.payload.usage,
      };
    case 'turn.stopped':
      return { type: 'stopped', stoppedBy: event.payload.stoppedBy.name, usage: event.payload.usage };
    case 'turn.paused':
      return { type: 'paused', message: event.payload.message, tokenBudget: event.payload.tokenBudget, usage: event.payload.usage };
  }
}

/** The status line of a running turn, in the interface language. */
export function statusText(phase: TurnPhase): string {
  switch (phase.kind) {
    case 'waiting':
      return t('workbench.status.starting');
    case 'preparing':
      return t('workbench.status.preparing');
    case 'thinking':
      return t('workbench.status.thinking');
    case 'writing':
      return t('workbench.status.writing');
    case 'tool':
      return t('workbench.status.tool', { name: phase.name, request: toolRequestText(phase.request, phase.requestWords) });
    case 'validating':
      return t('workbench.status.validating', { version: phase.version });
    case 'repairing':
      return t('workbench.status.repairing', { attempt: phase.attempt, max: phase.maxRepairs, count: phase.errorCount });
    case 'resumed':
      return phase.reason === 'restart' ? t('workbench.status.resumedRestart') : t('workbench.status.resumed');
    default: {
      const never: never = phase;
      return String(never);
    }
  }
}

/** The word before a failed turn's code: "No change was staged" when the AI only claimed one, else "Failed". */
export function failedTitle(ending: Extract<TurnEnding, { type: 'failed' }>): string {
  return t(ending.noChangesStaged ? 'workbench.turn.noChangesStaged' : 'workbench.turn.failed');
}

/**
 * "Staged 1 file: step:wf/n1 (modified)." in the reader's language, from the files the event
 * names (the event's own `text` is the server's English, so each viewer builds its own).
 */
export function stagedText(files: readonly StagedFile[]): string {
  if (files.length === 0) return t('workbench.turn.stagedNone');
  const list = files.map((f) => t('workbench.turn.stagedFile', { key: f.key, action: t(`workbench.fileActions.${f.action}`) }));
  return t('workbench.turn.staged', { count: files.length, files: list.join(t('workbench.listSeparator')) });
}

/** `1234` → `1.2 s`; below a second in ms. */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * `{promptTokens: 1200, completionTokens: 80, …}` → `1,280 tokens (1,200 in, 80 out)`, then the
 * estimated cost when the server sent one: `· ≈ $0.0002`, or `· cost unknown` for a model
 * without a price (shared/ai/pricing.ts). Usage recorded before costs existed shows no cost.
 */
export function formatUsage(usage: Usage): string {
  const tokens = t('workbench.usage.tokens', {
    total: formatNumber(usage.totalTokens),
    prompt: formatNumber(usage.promptTokens),
    completion: formatNumber(usage.completionTokens),
  });
  return usage.estimatedCostUsd === undefined ? tokens : t('workbench.usage.withCost', { tokens, cost: formatCost(usage.estimatedCostUsd) });
}

function formatCost(cost: number | null): string {
  return cost === null ? t('workbench.usage.costUnknown') : t('workbench.usage.costAbout', { cost: formatCostUsd(cost) });
}

/** One person's AI use in the project (GET …/ai/usage): `Edith 1,280 tokens · ≈ $0.0123 (+ 2 turns of unknown cost)`. */
export function formatPersonUsage(person: PersonUsage, you: boolean): string {
  const who = you ? t('workbench.you') : (person.name ?? t('workbench.usage.formerMember'));
  const unknown = person.turnsWithUnknownCost;
  const cost =
    unknown === person.turns
      ? t('workbench.usage.costUnknown')
      : `${formatCost(person.estimatedCostUsd)}${unknown > 0 ? ` ${t('workbench.usage.unknownTurns', { count: unknown })}` : ''}`;
  return t('workbench.usage.person', { who, tokens: formatNumber(person.tokens.total), cost });
}

const SUMMARY_FIELD = /"assistantSummary"\s*:\s*"((?:[^"\\]|\\.)*)/u;
/** Where the JSON contract starts after a sentence: a fence opening an object, or an object naming `responseType`. */
const CONTRACT_AFTER_PROSE = /```(?:json)?[ \t]*\n\s*\{|\{\s*"responseType"/u;

/**
 * What to show of streamed assistant text. The last answer of a turn is the JSON contract
 * (`{"responseType": …, "assistantSummary": "…"}`, maybe fenced, maybe after a sentence): show
 * the summary as it grows, never the raw object (its `changeSet` holds file contents; the chat is
 * summary-only). Reasoning a server left in the content (`<think>…</think>`) is never shown.
 */
export function readableStream(text: string): string {
  const visible = withoutThinking(text);
  const trimmed = visible.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('```')) return summaryOf(trimmed);
  const at = trimmed.search(CONTRACT_AFTER_PROSE);
  if (at === -1) return visible;
  const prose = trimmed.slice(0, at).trimEnd();
  const summary = summaryOf(trimmed.slice(at));
  return summary ? `${prose}\n\n${summary}` : prose;
}

/** The contract's summary as received so far ('' before it starts). */
function summaryOf(contract: string): string {
  const match = SUMMARY_FIELD.exec(contract);
  if (!match) return '';
  // Drop a half-received escape at the end, then read the JSON string's escapes.
  const body = match[1]!.replace(/\\(u[0-9a-fA-F]{0,3})?$/u, '');
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    return body;
  }
}
