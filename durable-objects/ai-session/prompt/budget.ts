/**
 * The context budget of an AI turn: 70 % of the model's window
 * for the prompt and 30 % for the answer, unless set explicitly; the envelope trimmer that fits the
 * context digest into the prompt share, in a fixed, reported order (the target is never trimmed);
 * and the loop's trimmer for old tool results. Errors are AI_CONTEXT_BUDGET_EXCEEDED, worded for the
 * person who picked the model. Token counts are estimates (tokens.ts).
 */
import { ApiError } from '../../../shared/api-error.ts';
import type { TrimEntry } from '../../../shared/ai/turn.ts';
import type { ChatMessage } from '../../../shared/llm/types.ts';
import type { ContextEnvelope } from '../tools/context-envelope.ts';
import { isJsonObject } from '../overlay/package-lookups.ts';
import type { JsonObject } from '../overlay/package-lookups.ts';
import { clip } from './history.ts';
import { contextDigestJson } from './layers.ts';
import { estimateMessageTokens, estimateTokens } from './tokens.ts';

export { estimateMessageTokens, estimateMessagesTokens, estimateTokens } from './tokens.ts';

/** The window assumed when the model's is unknown: small enough for most hosted and local models. */
export const DEFAULT_CONTEXT_WINDOW = 32_768;
export const CONTEXT_SHARE = 0.7;
export const RESPONSE_SHARE = 0.3;

export interface Budget {
  contextWindow: number;
  /** Tokens the prompt may use. */
  contextBudget: number;
  /** Tokens kept free for the answer (the call's max_tokens). */
  responseBudget: number;
}

export interface BudgetInput {
  contextWindow?: number | null;
  contextBudget?: number | null;
  responseBudget?: number | null;
}

const positiveInt = (value: number | null | undefined): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 1 ? Math.floor(value) : undefined;

/**
 * 70 % / 30 % of the window. An explicit value wins (capped at the window); when only one of the
 * two is explicit, the other gets the rest of the window, or its usual share if nothing is left.
 */
export function budgetOf({ contextWindow, contextBudget, responseBudget }: BudgetInput): Budget {
  const window = positiveInt(contextWindow) ?? DEFAULT_CONTEXT_WINDOW;
  const context = positiveInt(contextBudget) === undefined ? undefined : Math.min(positiveInt(contextBudget)!, window);
  const response = positiveInt(responseBudget) === undefined ? undefined : Math.min(positiveInt(responseBudget)!, window);
  const share = (part: number) => Math.max(1, Math.floor(window * part));
  const rest = (used: number, part: number) => (window - used >= 1 ? window - used : share(part));
  return {
    contextWindow: window,
    contextBudget: context ?? (response === undefined ? share(CONTEXT_SHARE) : rest(response, CONTEXT_SHARE)),
    responseBudget: response ?? (context === undefined ? share(RESPONSE_SHARE) : rest(context, RESPONSE_SHARE)),
  };
}

const formatInt = (n: number): string => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/gu, ',');

/** AI_CONTEXT_BUDGET_EXCEEDED, in words for the person who chose the model; the numbers go in `extra`. */
export function budgetExceeded(needed: number, budget: number, what: string, extra: Record<string, unknown> = {}): ApiError {
  return new ApiError('AI_CONTEXT_BUDGET_EXCEEDED', {
    message:
      `This request is too large for the AI model's context window. Even after shortening everything that can be shortened, ` +
      `${what} need about ${formatInt(needed)} tokens, and this model leaves room for ${formatInt(budget)}.`,
    hints: [
      'Choose a model with a larger context window in your AI settings (or set its context window if it is configured too low).',
      'Work on a smaller target: one step instead of a whole workflow, or split a large file.',
      'Shorten your message, or start a new session if this one is long.',
    ],
    extra: { estimatedTokens: needed, contextBudget: budget, ...extra },
  });
}

// ---- the envelope trimmer ---------------------------------------------------------------------

export interface TrimOptions {
  /** The prompt's share of the window (Budget.contextBudget). */
  budgetTokens: number;
  /** Everything but the envelope: the other layers, the history, the user's message. */
  fixedTokens: number;
}

export interface TrimResult {
  envelope: ContextEnvelope;
  trimmed: TrimEntry[];
  /** fixedTokens + the envelope's tokens after trimming: the prompt's estimated size. */
  estimatedTokens: number;
}

/** Summaries keep this many items of a list, and cut texts to this many characters. */
const SUMMARY_ITEMS = 5;
const SUMMARY_TEXT_CHARS = 300;
/** Domain profile texts longer than this are reduced to a summary and a hash. */
const REDUCE_TEXT_CHARS = 200;
/** Rules of the normative baseline, shortened as the last resort. */
const RULE_CHARS = 120;

const jsonTokens = (value: unknown): number => estimateTokens(JSON.stringify(value) ?? '');
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** FNV-1a, 32 bits: a short, synchronous content fingerprint (not a security hash). */
export function contentHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return `fnv1a32:${(hash >>> 0).toString(16).padStart(8, '0')}`;
}

function cutText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [trimmed: ${text.length - max} more chars]`;
}

/** What names an item of a list in a summary: its id or path, else a short preview. */
function itemLabel(item: unknown): unknown {
  if (typeof item === 'string') return clip(item, 80);
  if (isJsonObject(item)) {
    for (const key of ['nodeId', 'id', 'agentId', 'path', 'key', 'from', 'to']) {
      if (typeof item[key] === 'string') return item[key];
    }
  }
  return clip(JSON.stringify(item) ?? '', 80);
}

/** Step 1: long lists become a count and their first ids/paths; long texts are cut with a marker. */
function summarize(value: unknown): unknown {
  if (typeof value === 'string') return cutText(value, SUMMARY_TEXT_CHARS);
  if (Array.isArray(value)) {
    if (value.length <= SUMMARY_ITEMS) return value.map(summarize);
    return { trimmed: 'summarized', count: value.length, first: value.slice(0, SUMMARY_ITEMS).map(itemLabel) };
  }
  if (isJsonObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, summarize(v)]));
  return value;
}

/** Step 2: a stub that says what was there. */
function truncate(original: unknown): unknown {
  if (Array.isArray(original)) return { trimmed: 'truncated', count: original.length };
  if (isJsonObject(original)) return { trimmed: 'truncated', keys: Object.keys(original) };
  if (typeof original === 'string') return { trimmed: 'truncated', chars: original.length };
  return original;
}

/** Step 3: a non-target text becomes a summary, its size and a hash. */
function reduce(text: string): JsonObject {
  return { trimmed: 'reduced', summary: clip(text, REDUCE_TEXT_CHARS), chars: text.length, hash: contentHash(text) };
}

/** Keys of an object, largest first (ties: key order), so the biggest win comes first. */
function largestFirst(object: JsonObject): string[] {
  return Object.keys(object)
    .map((key, index) => ({ key, index, tokens: jsonTokens(object[key]) }))
    .sort((a, b) => b.tokens - a.tokens || a.index - b.index)
    .map((k) => k.key);
}

/**
 * Fits the envelope, as layer 5 serialises it, plus `fixedTokens` under `budgetTokens`. In order,
 * stopping as soon as it fits: (1) summarise the dependency digest, key by key, largest first;
 * (2) truncate it to stubs, same order; (3) reduce long domain-profile texts to summary + hash;
 * (4) shorten the normative rules. target_snapshot, session_meta, tool_capabilities and
 * revision_info are never touched. Throws AI_CONTEXT_BUDGET_EXCEEDED when it still cannot fit.
 */
export function trimEnvelope(envelope: ContextEnvelope, { budgetTokens, fixedTokens }: TrimOptions): TrimResult {
  const out = structuredClone(envelope) as ContextEnvelope;
  const trimmed: TrimEntry[] = [];
  const total = () => fixedTokens + estimateTokens(contextDigestJson(out));
  const fits = () => total() <= budgetTokens;
  const result = (): TrimResult => ({ envelope: out, trimmed, estimatedTokens: total() });

  /** Replaces one value, recording the action when it changed anything. */
  const replace = (holder: Record<string, unknown>, key: string, path: string, action: TrimEntry['action'], next: unknown): void => {
    const before = holder[key];
    // A stub or summary of something small can be larger than the thing itself: keep the original.
    if (same(before, next) || jsonTokens(next) >= jsonTokens(before)) return;
    holder[key] = next;
    trimmed.push({ path, action, tokensBefore: jsonTokens(before), tokensAfter: jsonTokens(next) });
  };

  if (fits()) return result();
  const digest = out.dependency_digest;
  const original = envelope.dependency_digest;
  for (const key of largestFirst(digest)) {
    replace(digest, key, `dependency_digest.${key}`, 'summarized', summarize(digest[key]));
    if (fits()) return result();
  }
  for (const key of largestFirst(digest)) {
    replace(digest, key, `dependency_digest.${key}`, 'truncated', truncate(original[key]));
    if (fits()) return result();
  }
  const profile = out.domain_profile as Record<string, unknown>;
  for (const key of largestFirst(profile)) {
    const value = profile[key];
    if (typeof value !== 'string' || value.length <= REDUCE_TEXT_CHARS) continue;
    replace(profile, key, `domain_profile.${key}`, 'reduced', reduce(value));
    if (fits()) return result();
  }
  const baseline = out.normative_baseline;
  if (Array.isArray(baseline.rules)) {
    const rules = baseline.rules.map((rule: unknown) => (typeof rule === 'string' ? clip(rule, RULE_CHARS) : rule));
    replace(baseline, 'rules', 'normative_baseline.rules', 'truncated', rules);
    if (fits()) return result();
  }
  throw budgetExceeded(total(), budgetTokens, 'the target, your message and the instructions', {
    fixedTokens,
    targetTokens: jsonTokens(out.target_snapshot),
    trimmed,
  });
}

// ---- the loop's trimmer for tool results --------------------------------------------------------

/** What an old tool result is replaced with when the conversation outgrows the budget. */
export const TRIMMED_TOOL_RESULT = JSON.stringify({
  ok: true,
  trimmed: true,
  hint: 'This result was trimmed to fit the context; call the tool again if you need it.',
});

export interface FitResult {
  messages: ChatMessage[];
  trimmed: TrimEntry[];
}

/**
 * Fits the running conversation of a turn under `budgetTokens` by replacing the content of the
 * oldest tool results with a short stub. Never touches system messages, the last user message,
 * or the results of the last assistant message's tool calls (the model has not read them yet).
 * Returns a new array; the input is not changed. Throws AI_CONTEXT_BUDGET_EXCEEDED when stubbing
 * every older result is not enough.
 */
export function fitToolMessages(messages: readonly ChatMessage[], budgetTokens: number): FitResult {
  const out = [...messages];
  const tokens = out.map(estimateMessageTokens);
  let total = tokens.reduce((a, b) => a + b, 0);
  const trimmed: TrimEntry[] = [];
  if (total <= budgetTokens) return { messages: out, trimmed };

  const lastAssistant = out.findLastIndex((m) => m.role === 'assistant');
  for (let i = 0; i < lastAssistant && total > budgetTokens; i += 1) {
    const message = out[i]!;
    if (message.role !== 'tool' || message.content === TRIMMED_TOOL_RESULT) continue;
    const stub: ChatMessage = { ...message, content: TRIMMED_TOOL_RESULT };
    const after = estimateMessageTokens(stub);
    if (after >= tokens[i]!) continue;
    trimmed.push({ path: `tool_result.${message.tool_call_id}`, action: 'truncated', tokensBefore: tokens[i]!, tokensAfter: after });
    total += after - tokens[i]!;
    tokens[i] = after;
    out[i] = stub;
  }
  if (total > budgetTokens) {
    throw budgetExceeded(total, budgetTokens, "this turn's conversation and the latest tool results", { trimmed });
  }
  return { messages: out, trimmed };
}
