/**
 * What the steps of one AI turn's loop share (turn-loop.ts): the runner's dependencies, the turn
 * being run, and the loop's fixed inputs (provider, offered tools, context budget). A step ends the
 * turn by throwing TurnEnded, which the runner turns into the turn's one ending.
 */
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { Db } from '../../../worker/db/client.ts';
import type { EffectiveLlmProfile, EffectiveProfileResult } from '../../../worker/llm/effective-profile.ts';
import type { ChatProvider } from '../../../worker/llm/provider.ts';
import type { ChatMessage, ProviderProfile, SealedLlmProfile } from '../../../shared/llm/types.ts';
import type { ErrorCode } from '../../../shared/errors.ts';
import type { NewEvent, SessionEvent } from '../../../shared/ai/events.ts';
import type { PriceTable } from '../../../shared/ai/pricing.ts';
import type { Actor, SessionCore } from '../session.ts';
import type { AuditBuffer } from './audit-buffer.ts';
import type { AuditOutbox } from './audit-outbox.ts';
import type { Ending } from './turn-endings.ts';

export interface TurnDeps {
  core: SessionCore;
  db: Db;
  /** The session's durable audit outbox (audit-outbox.ts). */
  audit: AuditOutbox;
  emit: (event: NewEvent) => SessionEvent;
  /** The user's effective profile: from `sealed` when the Worker sent it (null: none saved), else read from D1. */
  resolveProfile: (userId: string, sealed?: SealedLlmProfile | null) => Promise<EffectiveProfileResult>;
  createProvider: (profile: ProviderProfile) => ChatProvider;
  /** Model prices for the cost estimate of each call (LLM_PRICES_JSON over the defaults). */
  prices: () => PriceTable;
  /** Arm the watchdog alarm (keeps the object awake; resumes an orphaned turn after a restart). */
  armWatchdog: () => void;
  disarmWatchdog: () => void;
}

export interface ActiveTurn {
  turnId: string;
  controller: AbortController;
  stoppedBy: Actor | null;
  /** Settles when the run is over, its audit flush included. */
  done: Promise<void>;
  /** Settles once the turn's ending is stored and told (before the run's audit flush). */
  ended: Promise<void>;
  markEnded: () => void;
}

/** One run of the loop over one turn: set up once (turn-loop.ts `prepareLoop`), read by every step. */
export interface LoopContext {
  deps: TurnDeps;
  active: ActiveTurn;
  profile: EffectiveLlmProfile;
  audit: AuditBuffer;
  provider: ChatProvider;
  tools: ChatCompletionFunctionTool[];
  offered: ReadonlySet<string>;
  /** Tokens the prompt and the loop's messages may take (the tool definitions already taken out). */
  contextBudget: number;
}

export class TurnEnded extends Error {
  readonly ending: Ending;
  constructor(ending: Ending) {
    super(ending.kind);
    this.ending = ending;
  }
}

export function fail(code: ErrorCode, message: string, hints: string[] = []): never {
  throw new TurnEnded({ kind: 'failed', code, message, hints });
}

/** The session's token budget when the session's usage has reached it, else null. */
export function budgetReached(core: SessionCore): number | null {
  const budget = core.turns.tokenBudget();
  if (budget === null) return null;
  return core.turns.sessionUsage().totalTokens < budget ? null : budget;
}

export function providerProfile(profile: EffectiveLlmProfile): ProviderProfile {
  return {
    baseUrl: profile.baseUrl,
    model: profile.model,
    apiKey: profile.apiKey,
    timeoutSeconds: profile.timeoutSeconds,
    ...(profile.contextWindow ? { contextWindow: profile.contextWindow } : {}),
  };
}

export function repairRequest(title: string, lines: string[]): ChatMessage {
  return { role: 'user', content: [`REPAIR_REQUEST: ${title}`, ...lines].join('\n') };
}
