/**
 * The AI turn's shared vocabulary: token usage, the prompt layers, the domain persona's
 * provenance and the "context summary" of what was sent to the model, as the events,
 * the session view and the Workbench read them.
 */
import * as z from 'zod';

/**
 * Token usage as the provider reported it, summed; `calls` counts the model calls behind it.
 * `estimatedCostUsd` (shared/ai/pricing.ts) is null when some call's model has no price, so the
 * sum is unknown; it is absent on usage recorded before costs were estimated.
 */
export const Usage = z.object({
  promptTokens: z.number().int().min(0),
  completionTokens: z.number().int().min(0),
  totalTokens: z.number().int().min(0),
  calls: z.number().int().min(0),
  estimatedCostUsd: z.number().min(0).nullable().optional(),
});
export type Usage = z.infer<typeof Usage>;

export const ZERO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, calls: 0, estimatedCostUsd: 0 };

/** The cost of a usage: no calls cost nothing; calls without an estimate cost an unknown amount. */
export function costOf(usage: Partial<Usage>): number | null {
  if (usage.estimatedCostUsd !== undefined) return usage.estimatedCostUsd;
  return (usage.calls ?? 0) === 0 ? 0 : null;
}

/** Add usages; never overwrites (usage accumulates per call, per turn and per session). An unknown cost stays unknown. */
export function addUsage(a: Usage, b: Partial<Usage> | undefined): Usage {
  if (!b) return a;
  const costA = costOf(a);
  const costB = costOf(b);
  return {
    promptTokens: a.promptTokens + (b.promptTokens ?? 0),
    completionTokens: a.completionTokens + (b.completionTokens ?? 0),
    totalTokens: a.totalTokens + (b.totalTokens ?? 0),
    calls: a.calls + (b.calls ?? 0),
    estimatedCostUsd: costA === null || costB === null ? null : costA + costB,
  };
}

/** The eight prompt layers, in their fixed order. */
export const PROMPT_LAYER_IDS = ['0A', '0B', '1', '2', '3', '4', '5', '6'] as const;
export type PromptLayerId = (typeof PROMPT_LAYER_IDS)[number];

export const PROMPT_LAYER_TITLES: Readonly<Record<PromptLayerId, string>> = {
  '0A': 'Core Identity',
  '0B': 'Domain Persona',
  '1': 'Global Guardrails',
  '2': 'Output Contract',
  '3': 'Entry Strategy',
  '4': 'Mode Strategy',
  '5': 'Context Digest',
  '6': 'Apply Policy',
};

export interface PromptLayer {
  id: PromptLayerId;
  title: string;
  text: string;
}

/** Where the domain persona came from: project metadata, workflow signals, or a safe default. */
export const PersonaSource = z.enum(['project', 'workflow_signals', 'default']);
export type PersonaSource = z.infer<typeof PersonaSource>;

export const PersonaSummary = z.object({
  source: PersonaSource,
  /** 0..1: how much of the persona rests on real data. */
  confidence: z.number().min(0).max(1),
  industryDomain: z.string(),
  /** Which of the five fields were filled from data (the rest are defaults). */
  filledFields: z.array(z.string()),
});
export type PersonaSummary = z.infer<typeof PersonaSummary>;

/** One thing the budget trimmer did (the target is never trimmed; dependencies are summarised, then cut). */
export const TrimEntry = z.object({
  /** A dotted path inside the envelope (`dependency_digest.nodes`) or `history` / `tool_result`. */
  path: z.string(),
  action: z.enum(['summarized', 'truncated', 'reduced', 'dropped']),
  tokensBefore: z.number().int().min(0),
  tokensAfter: z.number().int().min(0),
});
export type TrimEntry = z.infer<typeof TrimEntry>;

export const BudgetSummary = z.object({
  contextWindow: z.number().int().min(1),
  /** 70 % of the window unless set explicitly. */
  contextBudget: z.number().int().min(1),
  /** 30 % of the window unless set explicitly. */
  responseBudget: z.number().int().min(1),
  /** Our estimate of the prompt's tokens after trimming (the provider's usage is the truth). */
  estimatedTokens: z.number().int().min(0),
  trimmed: z.array(TrimEntry),
});
export type BudgetSummary = z.infer<typeof BudgetSummary>;

/** What was sent to the model for a turn, for the Workbench's "context summary". */
export const ContextSummary = z.object({
  layers: z.array(z.object({ id: z.enum(PROMPT_LAYER_IDS), title: z.string(), chars: z.number().int().min(0) })),
  persona: PersonaSummary,
  /** The envelope's seven keys and what each held (short descriptions, no contents). */
  envelope: z.record(z.string(), z.string()),
  budget: BudgetSummary,
  history: z.object({ rawMessages: z.number().int().min(0), summarizedMessages: z.number().int().min(0) }),
  tools: z.array(z.string()),
  suggestOnly: z.boolean(),
});
export type ContextSummary = z.infer<typeof ContextSummary>;

/** The model's final answer contract, as the original product defined it. */
export const FinalAnswer = z.object({
  responseType: z.enum(['chat', 'change']),
  assistantSummary: z.string().min(1).max(8000),
  changeSet: z.unknown().optional(),
  /** The review threads the answer says it addressed ("address the open comments"), read leniently. */
  addressedThreads: z.unknown().optional(),
});
export type FinalAnswer = z.infer<typeof FinalAnswer>;

export const TurnStatus = z.enum(['running', 'finished', 'failed', 'stopped', 'paused']);
export type TurnStatus = z.infer<typeof TurnStatus>;

/** Loop limits of one turn. */
export const MAX_LOOP_ITERATIONS = 8;
export const MAX_REPAIRS = 2;
/** A user message, as the chat box takes it. */
export const MAX_MESSAGE_CHARS = 8000;
