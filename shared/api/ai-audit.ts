/**
 * Contracts of GET /api/projects/:projectId/ai/audit/events and GET …/ai/metrics:
 * the AI audit trail, newest first, and the numbers computed from it. Editors and owners only.
 */
import * as z from 'zod';
import { AUDIT_EVENT_TYPES } from '../ai/audit.ts';

export const AuditEventsQuery = z.object({
  type: z.enum(AUDIT_EVENT_TYPES).optional(),
  sessionId: z.string().trim().min(1).max(200).optional(),
  userId: z.string().trim().min(1).max(200).optional(),
  code: z.string().trim().min(1).max(100).optional(),
  /** ISO timestamps, inclusive / exclusive. */
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
  /** Cursor from the previous page (`nextCursor`). */
  before: z.string().max(400).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type AuditEventsQuery = z.infer<typeof AuditEventsQuery>;

export interface AuditEventView {
  id: string;
  type: string;
  sessionId: string | null;
  userId: string | null;
  code: string | null;
  latencyMs: number | null;
  payload: unknown;
  createdAt: string;
}

export interface AuditEventsPage {
  items: AuditEventView[];
  nextCursor: string | null;
}

export const MetricsQuery = z.object({
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
});
export type MetricsQuery = z.infer<typeof MetricsQuery>;

export interface AiMetrics {
  window: { since: string | null; until: string | null };
  sessions: number;
  messages: number;
  turns: { total: number; finished: number; failed: number; stopped: number; paused: number; successRate: number | null };
  /** Turn duration percentiles in ms (finished + failed + stopped turns). */
  latencyMs: { p50: number | null; p95: number | null; max: number | null };
  tools: { calls: number; failed: number; forbidden: number; notAllowed: number };
  /** Error code → how many audit rows carry it. */
  codes: Record<string, number>;
  repairs: number;
  validationFailures: number;
  apply: { succeeded: number; failed: number; revisionMismatchWarnings: number; conversion: number | null };
  tokens: { prompt: number; completion: number; total: number };
}

/** GET …/ai/usage (same window query as the metrics): tokens and estimated cost per person. */
export interface PersonUsage {
  userId: string;
  /** The person's display name; null when the account no longer exists. */
  name: string | null;
  /** Turns that ended in the window (a turn paused and resumed counts once). */
  turns: number;
  tokens: { prompt: number; completion: number; total: number };
  /** USD, summed over the turns whose cost is known (their model has a price). */
  estimatedCostUsd: number;
  /** Turns on a model without a price: their cost is unknown and not in estimatedCostUsd. */
  turnsWithUnknownCost: number;
}

export interface AiUsageByPerson {
  window: { since: string | null; until: string | null };
  /** Highest token total first. */
  people: PersonUsage[];
}
