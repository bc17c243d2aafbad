/**
 * The one entry point the turn loop calls to build a model request's prompt: resolves the domain
 * persona, windows the history, measures everything but the context digest, trims the envelope to
 * the budget, composes the eight layers and the messages, and reports what was sent (the context summary).
 * Pure; throws ApiError AI_PROMPT_COMPOSE_ERROR or AI_CONTEXT_BUDGET_EXCEEDED.
 */
import type { BmadPackage } from '../../../shared/bmad/index.ts';
import type { SessionMeta } from '../../../shared/ai/session.ts';
import type { ContextSummary, PromptLayer, TrimEntry } from '../../../shared/ai/turn.ts';
import type { DomainProfile } from '../../../shared/api/projects.ts';
import type { ChatMessage } from '../../../shared/llm/types.ts';
import { ApiError } from '../../../shared/api-error.ts';
import type { ContextEnvelope } from '../tools/context-envelope.ts';
import { budgetOf, trimEnvelope } from './budget.ts';
import type { Budget, TrimResult } from './budget.ts';
import { composeMessages, composeSystemInstruction } from './composer.ts';
import type { ComposeInput } from './composer.ts';
import { contextSummary } from './context-summary.ts';
import { historyWindow, RAW_HISTORY_MESSAGES } from './history.ts';
import type { HistoryMessage, HistoryWindow } from './history.ts';
import { contextDigestJson } from './layers.ts';
import { resolveDomainPersona } from './persona.ts';
import { turnLanguages } from './language.ts';
import type { ContentLanguage } from '../../../shared/i18n/content-language.ts';
import type { Locale } from '../../../shared/i18n/locales.ts';
import { estimateMessagesTokens, estimateTokens } from './tokens.ts';

export interface PreparePromptInput {
  session: SessionMeta;
  /** The initial context envelope (buildContextEnvelope), untrimmed. */
  envelope: ContextEnvelope;
  domainProfile: DomainProfile | Record<string, unknown> | null;
  /** The session's effective package, for the persona's workflow signals; null when not loaded. */
  pkg: BmadPackage | null;
  /** Earlier messages of the session, oldest first, without the current user message. */
  history: readonly HistoryMessage[];
  userMessage: string;
  /** Dotted names of the tools offered this turn (registry order). */
  tools: readonly string[];
  /** Suggest only: the loop offers no stage/discard tools. */
  suggestOnly: boolean;
  /** The project's content language; English when not given. */
  contentLanguage?: ContentLanguage;
  /** The interface language the sender chose for their account; null: their message's script decides. */
  senderLocale?: Locale | null;
  /** The model's context window; DEFAULT_CONTEXT_WINDOW when unknown. */
  contextWindow?: number | null;
  contextBudget?: number | null;
  responseBudget?: number | null;
  /** Prompt tokens spent outside the messages, e.g. the tool definitions sent with the request. */
  reservedTokens?: number;
}

export interface PreparedPrompt {
  messages: ChatMessage[];
  layers: PromptLayer[];
  summary: ContextSummary;
  /** responseBudget is the call's max_tokens; contextBudget bounds the loop's fitToolMessages. */
  budget: Budget;
}

/** Layer 5 with this stand-in measures as the envelope's own tokens are left out. */
const PLACEHOLDER_ENVELOPE: ContextEnvelope = {
  session_meta: {},
  domain_profile: {},
  normative_baseline: {},
  target_snapshot: {},
  dependency_digest: {},
  tool_capabilities: {},
  revision_info: {},
};

/** Fewer raw history messages to try, in order, before the budget is declared exceeded. */
const HISTORY_FALLBACK = [RAW_HISTORY_MESSAGES, 4, 2, 0] as const;

export function preparePrompt(input: PreparePromptInput): PreparedPrompt {
  const { session, userMessage, tools, suggestOnly } = input;
  const budget = budgetOf(input);
  const persona = resolveDomainPersona({ domainProfile: input.domainProfile, pkg: input.pkg, workflowId: session.workflowId });
  // The envelope's tool list is every model tool; the prompt names only the ones offered this turn.
  const envelope: ContextEnvelope = { ...input.envelope, tool_capabilities: { tools: [...tools], apply: false, suggestOnly } };
  const base: Omit<ComposeInput, 'envelope'> = {
    session,
    persona,
    tools,
    writePolicy: { allowApply: false, requiresValidation: true, suggestOnly },
    languages: turnLanguages(input.contentLanguage ?? 'en', input.senderLocale ?? null, userMessage),
  };
  const reserved = Math.max(0, Math.ceil(input.reservedTokens ?? 0));

  const fit = (history: HistoryWindow): TrimResult => {
    const placeholder = composeMessages({
      layers: composeSystemInstruction({ ...base, envelope: PLACEHOLDER_ENVELOPE }),
      history: history.messages,
      userMessage,
    });
    const fixedTokens = estimateMessagesTokens(placeholder) - estimateTokens(contextDigestJson(PLACEHOLDER_ENVELOPE)) + reserved;
    return trimEnvelope(envelope, { budgetTokens: budget.contextBudget, fixedTokens });
  };

  // History gives way only when trimming the envelope alone cannot make room.
  const attempts = HISTORY_FALLBACK.map((raw) => historyWindow(input.history, { raw })).filter(
    (candidate, i, all) => i === 0 || candidate.rawMessages !== all[i - 1]!.rawMessages,
  );
  const full = attempts[0]!;
  let history = full;
  let trimmed: TrimResult | undefined;
  for (const [i, candidate] of attempts.entries()) {
    try {
      trimmed = fit(candidate);
      history = candidate;
      break;
    } catch (error) {
      const budgetError = error instanceof ApiError && error.code === 'AI_CONTEXT_BUDGET_EXCEEDED';
      if (!budgetError || i === attempts.length - 1) throw error;
    }
  }
  if (!trimmed) throw new Error('unreachable: the last attempt either fits or throws');
  const historyTrim: TrimEntry[] =
    history === full
      ? []
      : [{ path: 'history', action: 'summarized', tokensBefore: estimateMessagesTokens(full.messages), tokensAfter: estimateMessagesTokens(history.messages) }];

  const layers = composeSystemInstruction({ ...base, envelope: trimmed.envelope });
  const messages = composeMessages({ layers, history: history.messages, userMessage });
  const summary = contextSummary({
    layers,
    persona: persona.summary,
    envelope: trimmed.envelope,
    budget: {
      ...budget,
      estimatedTokens: estimateMessagesTokens(messages) + reserved,
      trimmed: [...historyTrim, ...trimmed.trimmed],
    },
    history,
    tools,
    suggestOnly,
  });
  return { messages, layers, summary, budget };
}
