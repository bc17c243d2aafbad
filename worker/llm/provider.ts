// The LLM provider adapter the session engine uses: one streamed chat completion against any
// OpenAI-compatible provider, with an explicit retry policy, two time limits (the profile's
// timeoutSeconds as the longest silence: before the answer starts and between its pieces; and a
// generous total deadline, so a slow but steady stream finishes and nothing hangs), caller abort, and errors
// mapped to the product's codes with the key redacted — in errors and in the answer, wherever the model
// echoes it (streamed deltas included). Runs in Workers: fetch-based only, no node: APIs.

import { APIError } from 'openai/core/error';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { providerEndpoint } from './base-url.ts';
import { ChatClient, type ChatStream, type Fetch } from './chat-client.ts';
import { classifyFailure, malformedError, streamBrokenError, timeoutError, tooLargeError, type FailureContext } from './classify.ts';
import { IdleWatch } from './idle-watch.ts';
import { rejectedOptionalParameter } from './provider-quirks.ts';
import type { ProviderError } from './provider-error.ts';
import { redactChatOutcome } from './redact-result.ts';
import { retryDelayMs, sleep as defaultSleep } from './retry-policy.ts';
import { StreamRedactor } from './stream-redactor.ts';
import { CallbackError, ResponseTooLargeError, StreamAssembler } from './stream-assembler.ts';
import { withEstimatedUsage } from './usage-estimate.ts';
import { withTextToolCalls } from './text-tool-calls.ts';
import type { ChatResult, ProviderProfile, StreamChatRequest } from '../../shared/llm/types.ts';
import type { ChatOutcome, ProbeResult } from './chat-outcome.ts';

export interface ProviderOptions {
  /** Replaces the global fetch (tests, or a Workers service binding). */
  fetch?: Fetch;
  /** Waits between retries; resolves early when the signal aborts. Tests pass a recording stub. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Jitter source for the backoff, in [0, 1). */
  random?: () => number;
  now?: () => number;
  /** The whole call's deadline in seconds (default: callDeadlineSeconds of the profile's timeoutSeconds). Tests set a small one. */
  deadlineSeconds?: number;
}

export interface ChatProvider {
  /** One assistant turn, streamed. Resolves to an outcome; never rejects for provider failures. */
  streamChat(request: StreamChatRequest): Promise<ChatOutcome>;
  /** "Test connection": a tiny non-streamed completion. */
  probe(): Promise<ProbeResult>;
}

/** The least a whole call may take: room for a slow local model to stream a whole step file. */
export const CALL_DEADLINE_MIN_SECONDS = 10 * 60;

/**
 * The whole call's deadline, retries and waits included: at least CALL_DEADLINE_MIN_SECONDS and three
 * times the silence limit, so it is bounded (30 minutes at most, as timeoutSeconds is at most 600).
 */
export function callDeadlineSeconds(timeoutSeconds: number): number {
  return Math.max(CALL_DEADLINE_MIN_SECONDS, 3 * timeoutSeconds);
}

/** "Test connection" should answer quickly even when the profile allows long turns. */
export const PROBE_TIMEOUT_CAP_SECONDS = 30;
/** Lets our own deadline fire before the client's per-request timeout, so every timeout is classified the same way. */
const SDK_TIMEOUT_SLACK_MS = 1_000;

function isChatCompletion(value: unknown): value is ChatCompletion {
  return typeof value === 'object' && value !== null && Array.isArray((value as { choices?: unknown }).choices);
}

/** A 400 that names max_tokens: newer OpenAI models only accept max_completion_tokens. */
function rejectsMaxTokens(error: unknown): boolean {
  return error instanceof APIError && error.status === 400 && (error.param === 'max_tokens' || /max_completion_tokens/.test(error.message));
}

export function createChatProvider(profile: ProviderProfile, options: ProviderOptions = {}): ChatProvider {
  const provider: Provider = {
    profile,
    client: createClient(profile, options.fetch),
    secrets: profile.apiKey ? [profile.apiKey] : [],
    sleep: options.sleep ?? defaultSleep,
    random: options.random ?? Math.random,
    now: options.now ?? Date.now,
    deadlineSeconds: options.deadlineSeconds ?? callDeadlineSeconds(profile.timeoutSeconds),
    sendStreamOptions: true,
  };
  return { streamChat: (request) => streamChat(provider, request), probe: () => probe(provider) };
}

/** What every call of one provider shares: its profile, HTTP client, key to redact, clock, and what the server refused. */
interface Provider {
  readonly profile: ProviderProfile;
  readonly client: ChatClient;
  readonly secrets: readonly string[];
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly random: () => number;
  readonly now: () => number;
  readonly deadlineSeconds: number;
  /**
   * Cleared once the server refused `stream_options` (older Azure api-versions, some local servers): this
   * provider (one per turn) sends no more of it, and usage is estimated when the stream carries none.
   */
  sendStreamOptions: boolean;
}

function createClient(profile: ProviderProfile, fetch: ProviderOptions['fetch']): ChatClient {
  const endpoint = providerEndpoint(profile.baseUrl);
  return new ChatClient({
    baseURL: endpoint.baseURL,
    defaultQuery: endpoint.defaultQuery,
    // Azure reads the key from `api-key`, and must not get it twice; without a key, no header at all.
    authHeaders: !profile.apiKey
      ? {}
      : endpoint.keyHeader === 'api-key'
        ? { 'api-key': profile.apiKey }
        : { Authorization: `Bearer ${profile.apiKey}` },
    fetch,
  });
}

/** The limits a failure is judged by: the call's deadline and, for a request, its silence limit. */
interface Limits {
  deadlineSignal: AbortSignal;
  deadlineSeconds: number;
  idleSignal?: AbortSignal;
  timeoutSeconds: number;
}

function failureContext({ profile, secrets, now }: Provider, phase: FailureContext['phase'], callerSignal: AbortSignal | undefined, limits: Limits): FailureContext {
  return { phase, callerSignal, ...limits, baseUrl: profile.baseUrl, model: profile.model, secrets, now: now() };
}

/**
 * A model can echo the key it was called with (prompt injection, a confused model): the deltas go
 * out through a StreamRedactor, so a key split across deltas is caught too, and the answer is
 * redacted before it is returned.
 */
async function streamChat(provider: Provider, request: StreamChatRequest): Promise<ChatOutcome> {
  const { secrets } = provider;
  const text = request.onTextDelta ? new StreamRedactor(secrets, request.onTextDelta) : null;
  const reasoning = request.onReasoningDelta ? new StreamRedactor(secrets, request.onReasoningDelta) : null;
  const outcome = await streamChatUnredacted(provider, {
    ...request,
    ...(text ? { onTextDelta: (delta: string) => text.push(delta) } : {}),
    ...(reasoning ? { onReasoningDelta: (delta: string) => reasoning.push(delta) } : {}),
  });
  reasoning?.flush();
  text?.flush();
  return redactChatOutcome(outcome, secrets);
}

const failed = (error: ProviderError, partial?: ChatResult): ChatOutcome =>
  partial ? { type: 'failed', error, partial } : { type: 'failed', error };

/** Attempts the streamed call until it completes, fails for good, is aborted or runs out of time. */
async function streamChatUnredacted(provider: Provider, request: StreamChatRequest): Promise<ChatOutcome> {
  const { profile, now } = provider;
  const deadlineMs = provider.deadlineSeconds * 1000;
  const startedAt = now();
  const deadline = AbortSignal.timeout(deadlineMs);
  const callSignal = request.signal ? AbortSignal.any([request.signal, deadline]) : deadline;
  const callLimits: Limits = { deadlineSignal: deadline, deadlineSeconds: provider.deadlineSeconds, timeoutSeconds: profile.timeoutSeconds };
  const callbacks = {
    ...(request.onTextDelta ? { onTextDelta: request.onTextDelta } : {}),
    ...(request.onReasoningDelta ? { onReasoningDelta: request.onReasoningDelta } : {}),
    ...(request.onToolCallDelta ? { onToolCallDelta: request.onToolCallDelta } : {}),
  };

  for (let attempts = 1; ; attempts++) {
    const assembler = new StreamAssembler(callbacks);
    let phase: FailureContext['phase'] = 'request';
    // Each request has its own silence limit; the deadline is the call's.
    const idle = new IdleWatch(profile.timeoutSeconds * 1000);
    const limits: Limits = { ...callLimits, idleSignal: idle.signal };
    try {
      const signal = AbortSignal.any([callSignal, idle.signal]);
      const stream = await openStream(provider, request, signal, Math.max(1, deadlineMs - (now() - startedAt)), idle.touch);
      phase = 'stream';
      for await (const chunk of stream) assembler.push(chunk);
      return endOfStream(provider, request, limits, assembler, stream.endedByServer, attempts);
    } catch (error) {
      if (error instanceof CallbackError) throw error.cause;
      // Cut off: what came before the limit is the partial answer (the loop keeps none of its tool calls).
      if (error instanceof ResponseTooLargeError) {
        return failed(tooLargeError(failureContext(provider, phase, request.signal, limits), error.limitChars), assembler.result(false, attempts));
      }
      // Refused before any byte: the same request once more without it, not counted as a failure.
      if (phase === 'request' && provider.sendStreamOptions && rejectedOptionalParameter(error, ['stream_options']) !== null) {
        provider.sendStreamOptions = false;
        continue;
      }
      const classified = classifyFailure(error, failureContext(provider, phase, request.signal, limits));
      const partial = phase === 'stream' ? assembler.result(false, attempts) : undefined;
      if (classified.type === 'aborted') return { type: 'aborted', partial: partial ?? assembler.result(false, attempts) };

      const wait = retryDelayMs({
        error: classified.error,
        responseStarted: phase === 'stream',
        attempts,
        remainingMs: deadlineMs - (now() - startedAt),
        random: provider.random,
      });
      if (wait === null) return failed(classified.error, partial);
      idle.stop();
      await provider.sleep(wait, callSignal);
      if (request.signal?.aborted) return { type: 'aborted', partial: assembler.result(false, attempts) };
      if (deadline.aborted) return failed(timeoutError(failureContext(provider, 'request', request.signal, callLimits), 'total'));
    } finally {
      idle.stop();
    }
  }
}

/** One streamed request; `remainingMs` is what is left of the call's deadline, `onActivity` hears of every arrival. */
async function openStream(
  { profile, client, sendStreamOptions }: Provider,
  request: StreamChatRequest,
  signal: AbortSignal,
  remainingMs: number,
  onActivity: () => void,
): Promise<ChatStream> {
  return client.stream(
    {
      model: profile.model,
      messages: request.messages,
      ...(request.tools && request.tools.length > 0 ? { tools: request.tools } : {}),
      stream: true,
      ...(sendStreamOptions ? { stream_options: { include_usage: true } } : {}),
    },
    { signal, timeout: remainingMs + SDK_TIMEOUT_SLACK_MS, onActivity },
  );
}

/**
 * How a stream that ended without an exception went. The SDK ends a stream silently when its
 * signal aborts, so the caller's abort, the silence limit and the deadline are told apart here. A stream that closed
 * with `data: [DONE]` ended normally even without a finish reason (some servers never send one, or
 * send ""): the reason is what its answer shows. One with neither was cut off (LM Studio and
 * llama.cpp leave out [DONE] but do send the reason). A completed answer gets the tool calls a model
 * wrote as text, and a usage estimate when the stream carried none.
 */
function endOfStream(
  provider: Provider,
  request: StreamChatRequest,
  limits: Limits,
  assembler: StreamAssembler,
  endedByServer: boolean,
  attempts: number,
): ChatOutcome {
  if (request.signal?.aborted) return { type: 'aborted', partial: assembler.result(false, attempts) };
  const ctx = failureContext(provider, 'stream', request.signal, limits);
  if (limits.idleSignal?.aborted) return failed(timeoutError(ctx, 'silence'), assembler.result(false, attempts));
  if (limits.deadlineSignal.aborted) return failed(timeoutError(ctx, 'total'), assembler.result(false, attempts));
  if (assembler.chunkCount === 0) return failed(malformedError(ctx, 'no chat completion chunks in the stream'));
  if (assembler.finishReason === null && endedByServer) assembler.inferFinishReason();
  if (assembler.finishReason === null) return failed(streamBrokenError(ctx), assembler.result(false, attempts));
  const offered = (request.tools ?? []).flatMap((tool) => (tool.type === 'function' ? [tool.function.name] : []));
  return { type: 'completed', result: withEstimatedUsage(withTextToolCalls(assembler.result(true, attempts), offered), request) };
}

/** "Test connection": asks for five tokens, with max_completion_tokens when the model refuses max_tokens. */
async function probe(provider: Provider): Promise<ProbeResult> {
  const { profile, client, now } = provider;
  const timeoutSeconds = Math.min(profile.timeoutSeconds, PROBE_TIMEOUT_CAP_SECONDS);
  const deadline = AbortSignal.timeout(timeoutSeconds * 1000);
  const startedAt = now();
  const ask = (limit: 'max_tokens' | 'max_completion_tokens') =>
    client.create(
      {
        model: profile.model,
        messages: [{ role: 'user', content: 'Reply with OK.' }],
        stream: false,
        ...(limit === 'max_tokens' ? { max_tokens: 5 } : { max_completion_tokens: 5 }),
      },
      { signal: deadline, timeout: timeoutSeconds * 1000 + SDK_TIMEOUT_SLACK_MS },
    );
  const limits: Limits = { deadlineSignal: deadline, deadlineSeconds: timeoutSeconds, timeoutSeconds };
  const failure = (error: ProviderError): ProbeResult => ({ ok: false, code: error.code, message: error.message, hints: error.hints });
  try {
    let completion: unknown;
    try {
      completion = await ask('max_tokens');
    } catch (error) {
      if (!rejectsMaxTokens(error)) throw error;
      completion = await ask('max_completion_tokens');
    }
    if (!isChatCompletion(completion)) {
      return failure(malformedError(failureContext(provider, 'stream', undefined, limits), 'not a chat completion'));
    }
    return { ok: true, latencyMs: now() - startedAt, model: completion.model || profile.model };
  } catch (error) {
    const classified = classifyFailure(error, failureContext(provider, 'request', undefined, limits));
    // Nothing but the deadline can abort a probe.
    return failure(classified.type === 'error' ? classified.error : timeoutError(failureContext(provider, 'request', undefined, limits), 'total'));
  }
}
