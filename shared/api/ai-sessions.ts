/**
 * Contracts of /api/projects/:projectId/ai/sessions: create, read, list, stage,
 * validate, discard, apply, cancel, and the shared review (comments, approvals).
 */
import * as z from 'zod';
import { SessionMode, SessionStatus, TargetType } from '../ai/session.ts';
import { MAX_MESSAGE_CHARS, type TurnStatus, type Usage } from '../ai/turn.ts';
import type { ErrorCode } from '../errors.ts';
import type { SessionView } from './ai-session-views.ts';
import type { ImpactDigest } from '../ai/impact-digest.ts';

const Id = z.string().trim().min(1).max(200);

/**
 * The target fields are checked by the route, not here, so a missing or unknown target answers
 * AI_TARGET_CONTEXT_REQUIRED / AI_TARGET_NOT_SUPPORTED rather than a generic validation error.
 */
export const CreateSessionInput = z.strictObject({
  /** The original product's clients send numbers for ids; they are read as text. */
  workflowId: z.union([Id, z.number().int().transform(String)]).nullish(),
  targetType: z.string().nullish(),
  targetId: z.union([Id, z.number().int().transform(String)]).nullish(),
  mode: z.string().nullish(),
  userPrompt: z.string().max(MAX_MESSAGE_CHARS).nullish(),
  /** Total tokens the session may use (optional); the loop pauses when it is reached. */
  tokenBudget: z.number().int().min(1000).max(100_000_000).nullish(),
});
export type CreateSessionInput = z.input<typeof CreateSessionInput>;

/** How a session ended up, as the sessions page shows it: `applied` once any version was applied. */
export const SessionState = z.enum(['active', 'applied', 'cancelled', 'failed']);
export type SessionState = z.infer<typeof SessionState>;

export const SessionListQuery = z.object({
  /** The stored status (the workbench asks for `active` sessions to join). */
  status: SessionStatus.optional(),
  /** The sessions page's filters: outcome, target type and the person who started it. */
  state: SessionState.optional(),
  targetType: TargetType.optional(),
  createdBy: z.string().trim().min(1).max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});

export interface SessionSummaryView {
  sessionId: string;
  workflowId: string | null;
  targetType: TargetType;
  targetId: string | null;
  mode: SessionMode;
  status: SessionStatus;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One row of the sessions page: the summary, who started it, what it changed and how it ended. */
export interface SessionListItemView extends SessionSummaryView {
  state: SessionState;
  /** The starter's name; null when the account is gone. */
  createdByName: string | null;
  /** Files of the applied version (once applied), else of the latest staged version. */
  filesChanged: number;
  /** The latest apply: its change set, the revision it made, who and when. */
  applied: { changeSetId: string; revision: number | null; objectKey: string | null; by: string | null; at: string } | null;
  /** The impact of the latest version (files, lines, risk flags with reasons), as mirrored when it was made; null before any. */
  impact: ImpactDigest | null;
  /** When and by whom a cancelled session was ended. */
  endedAt: string | null;
  endedBy: string | null;
}

export const StageInput = z.strictObject({ changeSet: z.unknown() });
export const ValidateInput = z.strictObject({ changeSetId: Id.optional() });

export const RevisionBaseInput = z.strictObject({
  workflowRevision: z.number().int().min(0).optional(),
  agentsRevision: z.number().int().min(0).optional(),
  assetsRevision: z.number().int().min(0).optional(),
});

/** `confirmSource` is read as any text so a wrong value answers AI_APPLY_REQUIRES_CONFIRMATION. */
export const ApplyInput = z.strictObject({
  changeSetId: Id,
  confirmSource: z.string().max(100).optional(),
  contentHash: z.string().max(128).optional(),
  revisionBase: RevisionBaseInput.optional(),
});
// Apart (confirm-source.ts) for the Workbench's first load, which must not load zod.
export { CONFIRM_SOURCE } from './confirm-source.ts';

/**
 * A line comment (or a reply). The body's size is checked by the session in UTF-8 bytes (16 KiB,
 * AI_COMMENT_TOO_LARGE), so a long comment gets that answer rather than a schema error.
 */
export const CommentInput = z.strictObject({
  objectKey: z.string().min(1).max(1100),
  line: z.number().int().min(1).max(1_000_000).nullish(),
  /** The last line of the commented range (default: `line`). */
  lineEnd: z.number().int().min(1).max(1_000_000).nullish(),
  body: z.string().min(1),
  /** Reply to this thread instead of starting one. */
  threadId: Id.optional(),
});

/** A checked comment as the session object takes it (shared/ai/session-rpc.ts CommentRequest), from HTTP or a socket frame alike: absent lines are null. */
export function commentRequestOf(input: z.infer<typeof CommentInput>) {
  return {
    objectKey: input.objectKey,
    line: input.line ?? null,
    lineEnd: input.lineEnd ?? null,
    body: input.body,
    ...(input.threadId ? { threadId: input.threadId } : {}),
  };
}

export const ApproveInput = z.strictObject({ changeSetId: Id, contentHash: z.string().min(1).max(128) });

/** "Request changes" on the version the reviewer saw (body checked like a comment's). */
export const ChangeRequestInput = z.strictObject({ changeSetId: Id, contentHash: z.string().min(1).max(128), body: z.string().min(1) });

/** An owner's decision, recorded in the audit log with its reason. */
export const DismissInput = z.strictObject({ reason: z.string().min(1).max(1000) });
export const OverrideInput = z.strictObject({ changeSetId: Id, contentHash: z.string().min(1).max(128), reason: z.string().min(1).max(1000) });

export const SessionStateQuery = z.object({
  messagesBefore: z.coerce.number().int().min(1).optional(),
  messagesLimit: z.coerce.number().int().min(1).max(200).optional(),
});

/** POST …/messages: one user message starts one turn. */
export const MessageInput = z.strictObject({
  content: z
    .string()
    .trim()
    .min(1, 'Write a message for the AI.')
    .max(MAX_MESSAGE_CHARS, `A message is limited to ${MAX_MESSAGE_CHARS} characters.`),
  /** Suggest only: the AI reads and suggests, but stages nothing. */
  suggestOnly: z.boolean().optional(),
});
export type MessageInput = z.infer<typeof MessageInput>;

/** The answer of POST …/messages: the turn is accepted; its progress follows as events after `seq`. */
export interface MessageAccepted {
  turnId: string;
  /** The seq of the `turn.accepted` event; everything of this turn follows it. */
  seq: number;
  status: 'running';
}

/** The longest a client may wait for a turn on POST …/messages?wait. */
export const MAX_MESSAGE_WAIT_SECONDS = 120;

/**
 * POST …/messages?wait=true (wait up to MAX_MESSAGE_WAIT_SECONDS) or ?wait=<seconds> (1 to that):
 * for scripts and CI jobs, the answer comes when the turn ends (200, MessageWaited) instead of at once;
 * a turn still running at the bound answers 202 (MessageStillRunning). Without `wait` (or wait=false):
 * 202 at once, as the browser wants. `wait` is 0 when the client does not wait.
 */
export const MessageQuery = z.object({
  wait: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === 'false' || value === '0') return 0;
      if (value === 'true' || value === '') return MAX_MESSAGE_WAIT_SECONDS;
      const seconds = Number(value);
      if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_MESSAGE_WAIT_SECONDS) {
        ctx.addIssue({ code: 'custom', message: `wait is "true" or a whole number of seconds from 1 to ${MAX_MESSAGE_WAIT_SECONDS}.` });
        return z.NEVER;
      }
      return seconds;
    }),
});

/** How a turn ended, as POST …/messages?wait answers it (200). */
export interface MessageWaited {
  turn: {
    turnId: string;
    /** finished, failed, stopped, or paused (by the token budget; resume it to go on). */
    status: TurnStatus;
    /** For a finished turn: did it stage a change, or only answer? */
    responseType: 'chat' | 'change' | null;
    /** For a failed turn: why. */
    error: { code: ErrorCode; message: string; hints: string[] } | null;
    iterations: number;
    repairs: number;
    usage: Usage;
  };
  /** The turn's answer for the chat (null unless it finished). */
  assistantSummary: string | null;
  /** The staged change as the session holds it now, and its validation. */
  latestSuggestion: SessionView['latestSuggestion'];
  validation: SessionView['validation'];
}

/** POST …/messages?wait when the turn outlasts the wait (202): read the session (or watch its events) to follow it. */
export interface MessageStillRunning extends MessageAccepted {
  waitedSeconds: number;
  poll: { method: 'GET'; path: string; hint: string };
}

/** PATCH …/sessions/:sid: session settings an editor may change. */
export const UpdateSessionInput = z.strictObject({
  /** Total tokens this session may use; null removes the limit. */
  tokenBudget: z.number().int().min(1000).max(100_000_000).nullable(),
});

/** Undo one node or edge of a staged graph back to the stored package, on the version the person saw. */
export const GraphUndoInput = z.strictObject({
  changeSetId: Id,
  contentHash: z.string().min(1).max(128).optional(),
  workflowId: z.string().min(1).max(200),
  part: z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('node'), id: z.string().min(1).max(200) }),
    z.strictObject({ kind: z.literal('edge'), key: z.string().min(1).max(500) }),
  ]),
});
export type GraphUndoInput = z.infer<typeof GraphUndoInput>;
