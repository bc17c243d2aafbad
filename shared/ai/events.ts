/**
 * The sequenced events of an AI session (durable-objects/ai-session/PROTOCOL.md). Every observable
 * step — staged, validated, commented, approved, applied, cancelled, and the loop's steps — is one
 * event with a gap-free `seq`, stored in the session's Durable Object and sent to every viewer.
 * Payloads stay small: file lists and counts, never file contents (those are read over HTTP).
 */
import * as z from 'zod';
import { TargetType, SessionMode } from './session.ts';
import { ContextSummary, Usage } from './turn.ts';
import { ToolWords } from './tool-words.ts';

export const FileAction = z.enum(['A', 'M', 'D']);
export const ChangedFileSchema = z.object({ key: z.string(), action: FileAction, path: z.string().optional() });

export const EventActor = z.union([
  z.object({ kind: z.literal('user'), userId: z.string(), name: z.string() }),
  z.object({ kind: z.literal('ai') }),
  z.object({ kind: z.literal('system') }),
]);
export type EventActor = z.infer<typeof EventActor>;

/** The event actor of a person (only the fields an event shows). */
export function userActor(actor: { userId: string; name: string }): EventActor {
  return { kind: 'user', userId: actor.userId, name: actor.name };
}

export const RevisionSet = z.object({
  workflowRevision: z.number().int().nullable(),
  agentsRevision: z.number().int(),
  assetsRevision: z.number().int(),
  /** Every workflow the apply wrote, when it wrote more than one. */
  workflowRevisions: z.record(z.string(), z.number().int()).optional(),
});
export type RevisionSet = z.infer<typeof RevisionSet>;

export const RevisionWarning = z.object({
  code: z.literal('AI_REVISION_BASE_MISMATCH'),
  message: z.string(),
  field: z.string(),
  provided: z.number().int(),
  current: z.number().int(),
  blocking: z.literal(false),
});
export type RevisionWarning = z.infer<typeof RevisionWarning>;

const payloads = {
  'session.created': z.object({
    targetType: TargetType,
    targetId: z.string().nullable(),
    workflowId: z.string().nullable(),
    mode: SessionMode,
  }),
  'change.staged': z.object({
    version: z.number().int(),
    changeSetId: z.string(),
    contentHash: z.string(),
    /** `ai`: staged by the model's tool; `edit`: a person's co-edit; `api`: staged through the tool API by a person; `restore`: a person restored a checkpoint; `rebase`: the draft moved onto a new baseline; `undo`: a person undid (or re-applied) a part of the draft. */
    source: z.enum(['ai', 'edit', 'api', 'restore', 'rebase', 'undo']),
    files: z.array(ChangedFileSchema),
    /** For `restore`: the version whose checkpoint the draft was restored to. */
    restoredFrom: z.number().int().optional(),
  }),
  'change.validated': z.object({
    version: z.number().int(),
    changeSetId: z.string(),
    valid: z.boolean(),
    errorCount: z.number().int(),
    warningCount: z.number().int(),
    summary: z.string(),
  }),
  'change.discarded': z.object({ version: z.number().int().nullable() }),
  /** A person undid one file or one hunk of the draft back to the baseline (or re-applied what an undo took away): a new version. */
  'change.undone': z.object({
    undoId: z.string(),
    objectKey: z.string(),
    /** The hunk's first draft line and line count before the undo; null for the whole file. */
    hunk: z.object({ newStart: z.number().int(), newLines: z.number().int(), oldStart: z.number().int(), oldLines: z.number().int() }).nullable(),
    /** `undo`: back to the baseline; `reapply`: an undo itself undone. */
    kind: z.enum(['undo', 'reapply']),
    removed: z.boolean(),
    version: z.number().int().nullable(),
  }),
  'comment.added': z.object({
    threadId: z.string(),
    commentId: z.string(),
    objectKey: z.string(),
    line: z.number().int().nullable(),
    /** The last line of the commented range (equal to `line` for one line). */
    lineEnd: z.number().int().nullable().optional(),
    body: z.string(),
  }),
  /** Someone was @mentioned in a comment: addressed to `userId` (everyone receives it, their workbench shows it). */
  mention: z.object({
    userId: z.string(),
    threadId: z.string(),
    commentId: z.string(),
    objectKey: z.string(),
    line: z.number().int().nullable(),
  }),
  'thread.resolved': z.object({ threadId: z.string() }),
  'thread.reopened': z.object({ threadId: z.string() }),
  'approval.added': z.object({ version: z.number().int(), changeSetId: z.string(), contentHash: z.string() }),
  /** "Request changes" on a version: blocks apply until its author approves, withdraws, or an owner dismisses it. */
  'changes.requested': z.object({ requestId: z.string(), version: z.number().int(), changeSetId: z.string(), body: z.string() }),
  'changes.request.closed': z.object({
    requestId: z.string(),
    userId: z.string(),
    reason: z.enum(['approved', 'withdrawn', 'dismissed']),
    /** The owner's reason, when dismissed. */
    note: z.string().nullable(),
  }),
  /** An owner let this version apply without the required approvals, with a recorded reason. */
  'approvals.overridden': z.object({ version: z.number().int(), changeSetId: z.string(), reason: z.string() }),
  'approval.revoked': z.object({
    version: z.number().int(),
    userId: z.string(),
    reason: z.enum(['content_changed', 'withdrawn', 'applied', 'discarded']),
  }),
  'change.applied': z.object({
    version: z.number().int(),
    changeSetId: z.string(),
    newRevision: RevisionSet,
    warnings: z.array(RevisionWarning),
    files: z.array(ChangedFileSchema),
  }),
  'apply.failed': z.object({
    version: z.number().int().nullable(),
    code: z.string(),
    message: z.string(),
  }),
  'session.cancelled': z.object({}),

  // The AI turn (loop/): accepted before the first token, then every step, then one ending event.
  'turn.accepted': z.object({ content: z.string(), suggestOnly: z.boolean() }),
  /** The prompt was composed: what was sent (layers, persona, budget and trims, history), no contents. */
  'turn.context': ContextSummary,
  'llm.requested': z.object({ iteration: z.number().int(), messages: z.number().int(), tools: z.number().int() }),
  /** Assistant text, coalesced (about 50 ms per event). */
  'assistant.delta': z.object({ iteration: z.number().int(), text: z.string() }),
  'llm.completed': z.object({
    iteration: z.number().int(),
    finishReason: z.string().nullable(),
    toolCalls: z.number().int(),
    usage: Usage,
    durationMs: z.number().int(),
    attempts: z.number().int(),
    /** The provider reported no usage (it refused stream_options): `usage` is an estimate. */
    usageEstimated: z.boolean().optional(),
    /** The tool calls were written as text by a server without a tool parser and recovered. */
    toolCallsFromText: z.boolean().optional(),
  }),
  'tool.started': z.object({
    iteration: z.number().int(),
    toolCallId: z.string(),
    name: z.string(),
    summary: z.string(),
    /** The summary as a code and values, for a viewer reading another language (tool-words.ts). */
    words: ToolWords.optional(),
  }),
  'tool.finished': z.object({
    iteration: z.number().int(),
    toolCallId: z.string(),
    name: z.string(),
    ok: z.boolean(),
    durationMs: z.number().int(),
    code: z.string().nullable(),
    summary: z.string(),
    words: ToolWords.optional(),
  }),
  'turn.validating': z.object({ version: z.number().int(), changeSetId: z.string() }),
  'turn.repairing': z.object({ attempt: z.number().int(), maxRepairs: z.number().int(), errorCount: z.number().int() }),
  'turn.resumed': z.object({ reason: z.enum(['restart', 'budget']), iteration: z.number().int() }),
  'turn.finished': z.object({
    responseType: z.enum(['chat', 'change']),
    summary: z.string(),
    changeSetId: z.string().nullable(),
    version: z.number().int().nullable(),
    valid: z.boolean().nullable(),
    /** Validation still fails after the allowed repairs: a person fixes it in the diff. */
    needsManualFix: z.boolean(),
    /** What the system staged (from the version, not from the model's words); null when nothing is. */
    staged: z.object({ files: z.array(z.object({ key: z.string(), action: FileAction })), text: z.string() }).nullable().optional(),
    iterations: z.number().int(),
    repairs: z.number().int(),
    usage: Usage,
    sessionUsage: Usage,
  }),
  'turn.failed': z.object({
    code: z.string(),
    message: z.string(),
    hints: z.array(z.string()),
    /** `no_changes_staged`: the AI claimed changes but nothing was staged (code AI_NO_CHANGES_STAGED; AI_SUGGEST_ONLY_NO_CHANGES in a suggest-only turn). */
    outcome: z.literal('no_changes_staged').optional(),
    usage: Usage,
    sessionUsage: Usage,
  }),
  'turn.stopped': z.object({ stoppedBy: z.object({ userId: z.string(), name: z.string() }), usage: Usage, sessionUsage: Usage }),
  'turn.paused': z.object({
    code: z.literal('AI_TOKEN_BUDGET_EXCEEDED'),
    message: z.string(),
    tokenBudget: z.number().int(),
    usage: Usage,
    sessionUsage: Usage,
  }),
} as const;

/** Events that end a turn. */
export const TURN_END_EVENTS = ['turn.finished', 'turn.failed', 'turn.stopped', 'turn.paused'] as const;

export type SessionEventType = keyof typeof payloads;
export const SESSION_EVENT_TYPES = Object.keys(payloads) as SessionEventType[];
export type EventPayload<T extends SessionEventType> = z.infer<(typeof payloads)[T]>;

const eventOf = <T extends SessionEventType>(type: T) =>
  z.object({
    seq: z.number().int().min(1),
    type: z.literal(type),
    at: z.string(),
    actor: EventActor,
    turnId: z.string().nullable(),
    payload: payloads[type],
  });

export const SessionEvent = z.discriminatedUnion(
  'type',
  SESSION_EVENT_TYPES.map((type) => eventOf(type)) as unknown as [
    ReturnType<typeof eventOf<'session.created'>>,
    ...ReturnType<typeof eventOf<SessionEventType>>[],
  ],
);

/** One stored event, typed by its `type`. */
export type SessionEvent = { [T in SessionEventType]: {
  seq: number;
  type: T;
  at: string;
  actor: EventActor;
  turnId: string | null;
  payload: EventPayload<T>;
} }[SessionEventType];

/** What a caller hands the event log; it adds `seq` and `at`. */
export type NewEvent = { [T in SessionEventType]: {
  type: T;
  actor: EventActor;
  turnId?: string | null;
  payload: EventPayload<T>;
} }[SessionEventType];
