/** What an AI session works on: one target (workflow, step, agent or asset) and one mode (create or optimize). */
import * as z from 'zod';

export const TargetType = z.enum(['workflow', 'step', 'agent', 'asset']);
export type TargetType = z.infer<typeof TargetType>;

export const SessionMode = z.enum(['create', 'optimize']);
export type SessionMode = z.infer<typeof SessionMode>;

export const SessionStatus = z.enum(['active', 'cancelled', 'failed']);
export type SessionStatus = z.infer<typeof SessionStatus>;

/** The session's identity, fixed at creation. */
export interface SessionMeta {
  sessionId: string;
  projectId: string;
  /** The workflow a step/workflow target lives in; null for agents and assets. */
  workflowId: string | null;
  targetType: TargetType;
  /** nodeId / agentId / asset path / workflow id; null for a create without a chosen id. */
  targetId: string | null;
  mode: SessionMode;
  /** The user who started the session. */
  createdBy: string;
  createdAt: string;
}
