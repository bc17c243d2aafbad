/**
 * Contracts of /api/projects/:projectId/ai/sessions: create, read, list, stage,
 * validate, discard, apply, cancel, and the shared review (comments, approvals).
 */
import { z } from 'zod';
import { SessionMode, SessionStatus, TargetType } from '../ai/session.ts';
import { MAX_MESSAGE_CHARS } from '../ai/turn.ts';

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

export const SessionListQuery = z.object({
  status: SessionStatus.optional(),
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
export const CONFIRM_SOURCE = 'ui_manual_apply';

export const CommentInput = z.strictObject({
  objectKey: z.string().min(1).max(1100),
  line: z.number().int().min(1).max(1_000_000).nullish(),
  body: z.string().min(1).max(4000),
  /** Reply to this thread instead of starting one. */
  threadId: Id.optional(),
});

export const ApproveInput = z.strictObject({ changeSetId: Id, contentHash: z.string().min(1).max(128) });

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

/** PATCH …/sessions/:sid: session settings an editor may change. */
export const UpdateSessionInput = z.strictObject({
  /** Total tokens this session may use; null removes the limit. */
  tokenBudget: z.number().int().min(1000).max(100_000_000).nullable(),
});
