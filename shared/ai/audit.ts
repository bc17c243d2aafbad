/**
 * The AI audit trail in D1 (`ai_audit_events`): one row per observable AI action,
 * secrets redacted before writing. The metrics (GET …/ai/metrics) are computed from these rows,
 * so the payload fields below are a contract between the writers and the metrics query.
 * Every turn-ending row also carries `turnUserId` (who sent the turn's message) and its `usage`
 * includes `estimatedCostUsd` (shared/ai/turn.ts); GET …/ai/usage sums them per person.
 */
export const AUDIT_EVENT_TYPES = [
  /** Session created (route). payload: the target. */
  'ai.session.created',
  /** A user message started a turn. payload {turnId, chars, suggestOnly}. */
  'ai.message.sent',
  /** The prompt of a turn was composed. payload {turnId, layers:[id], persona:{source,confidence}, estimatedTokens, trimmed}. */
  'ai.prompt.composed',
  /** One tool call. code = error code or null; latencyMs = tool duration. payload {turnId, toolCallId, name, ok}. */
  'ai.tool.called',
  /** Validation of a staged change failed inside a turn. code AI_VALIDATION_FAILED. payload {turnId, version, errorCount, codes}. */
  'ai.validation.failed',
  /** A turn ended with an answer. latencyMs = turn duration. payload {turnId, iterations, repairs, usage, responseType, changeSetId, valid}. */
  'ai.turn.finished',
  /** A turn ended with an error. code = the error code; latencyMs = turn duration. payload {turnId, iterations, repairs, usage}. */
  'ai.turn.failed',
  /** A person stopped a turn. latencyMs = turn duration. payload {turnId, usage}. */
  'ai.turn.stopped',
  /** The session's token budget paused a turn. code AI_TOKEN_BUDGET_EXCEEDED. payload {turnId, usage, tokenBudget}. */
  'ai.turn.paused',
  /** Apply committed (same batch as the writes). payload {changeSetId, version, contentHash, files, warnings:[{field,provided,current}]}. */
  'ai.apply.succeeded',
  /** Apply failed. code AI_APPLY_FAILED. payload {changeSetId, version, cause}. */
  'ai.apply.failed',
  /** Session cancelled. */
  'ai.session.cancelled',
  /** An owner dismissed someone's request for changes. payload {requestId, requestedBy, version, reason}. */
  'ai.review.dismissed',
  /** An owner overrode the required approvals for one version. payload {changeSetId, version, required, counted, reason}. */
  'ai.approvals.overridden',
] as const;
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];
